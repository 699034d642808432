// A stand-in for another server in the inbox tests: one actor with an RSA key, served as
// ActivityStreams on loopback, an inbox that records what it is sent, and a way to sign requests
// to a Rookery as that actor (draft-cavage or RFC 9421), with a date and a body of the test's choice.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportSpki, generateCryptoKeyPair, signRequest } from "@fedify/fedify";
import { Temporal } from "../src/federation/temporal.ts";

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface RemoteActor {
  /** `http://127.0.0.1:port` */
  origin: string;
  /** The actor's id. */
  id: string;
  username: string;
  /** The public key, PEM. */
  publicKeyPem: string;
  received: Received[];
  /** Signs and POSTs `activity` to `inbox`; answers the HTTP status. */
  send(
    inbox: string,
    activity: unknown,
    options?: { spec?: "draft-cavage-http-signatures-12" | "rfc9421"; at?: Date; tamper?: boolean; keyId?: string },
  ): Promise<number>;
  close(): Promise<void>;
}

export async function startRemoteActor(username = "mallory"): Promise<RemoteActor> {
  const keys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const pem = await exportSpki(keys.publicKey);
  const received: Received[] = [];
  let origin = "";
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = `${origin}/users/${username}`;
      if (req.method === "POST") {
        const text = Buffer.concat(chunks).toString("utf8");
        received.push({ path: req.url ?? "", headers: req.headers, body: text ? JSON.parse(text) : null });
        res.writeHead(202).end();
      } else if (req.url === `/users/${username}`) {
        res.writeHead(200, { "content-type": "application/activity+json" }).end(
          JSON.stringify({
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            id,
            type: "Person",
            preferredUsername: username,
            name: "Mallory",
            inbox: `${id}/inbox`,
            outbox: `${id}/outbox`,
            followers: `${id}/followers`,
            endpoints: { sharedInbox: `${origin}/inbox` },
            publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: pem },
          }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const id = `${origin}/users/${username}`;
  return {
    origin,
    id,
    username,
    publicKeyPem: pem,
    received,
    async send(inbox, activity, o = {}) {
      const body = JSON.stringify(activity);
      const request = new Request(inbox, {
        method: "POST",
        headers: { "content-type": "application/activity+json" },
        body,
      });
      const signed = await signRequest(request, keys.privateKey, new URL(o.keyId ?? `${id}#main-key`), {
        spec: o.spec,
        currentTime: o.at ? Temporal.Instant.fromEpochMilliseconds(o.at.getTime()) : undefined,
      });
      const sent = o.tamper ? body.replace("Hello", "Hullo") : body;
      const res = await fetch(inbox, { method: "POST", headers: signed.headers, body: sent });
      await res.arrayBuffer();
      return res.status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

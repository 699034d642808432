// A stand-in for another server on loopback, for tests and benchmarks of the inbox and of delivery:
// it serves its actors (Person documents with an RSA key, and WebFinger), signs requests as one of
// them in either HTTP Signatures form (draft-cavage, as Mastodon signs; RFC 9421, as Fedify and
// newer servers sign), and takes deliveries to its inboxes, keeping them for the test to read.
import { createHash, createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RemoteActor {
  username: string;
  /** The actor's id, `http://127.0.0.1:port/users/username`. */
  id: string;
  keyId: string;
  publicKeyPem: string;
  privateKey: KeyObject;
  /** Its other accounts' ids, as a Move's target lists its origin, and the account it moved to (set by a test). */
  alsoKnownAs?: string[];
  movedTo?: string;
}

export interface Delivery {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface RemoteServer {
  /** `http://127.0.0.1:port` */
  origin: string;
  host: string;
  actor(username: string): RemoteActor;
  /** Deliveries received, oldest first. */
  deliveries: Delivery[];
  /** Answer deliveries with this status (202 unless told). */
  inboxStatus: number;
  /** More properties of an actor's document (icon, image, tag), by username. */
  profiles: Map<string, Record<string, unknown>>;
  /** Files served by path (media), with their type (and another status than 200); `delayMs` holds each answer back. */
  files: Map<string, { type: string; body: Buffer; status?: number }>;
  delayMs: number;
  /** Requests for files: how many were made, and the most answered at once. */
  fileRequests: { count: number; active: number; maxActive: number };
  /** Other documents it serves (notes, collections), by path, as the test puts them. */
  documents: Map<string, unknown>;
  close(): Promise<void>;
}

type Spec = "draft-cavage" | "rfc9421";

// One key pair serves every actor of every stand-in server: making RSA keys is slow, and what the
// tests look at is whose key id a signature names.
let sharedKeys: { publicKeyPem: string; privateKey: KeyObject } | null = null;
function keys() {
  if (!sharedKeys) {
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    sharedKeys = {
      publicKeyPem: pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
      privateKey: pair.privateKey,
    };
  }
  return sharedKeys;
}

function actorDocument(a: RemoteActor, origin: string) {
  return {
    "@context": [
      "https://www.w3.org/ns/activitystreams",
      "https://w3id.org/security/v1",
      {
        alsoKnownAs: { "@id": "as:alsoKnownAs", "@type": "@id" },
        movedTo: { "@id": "as:movedTo", "@type": "@id" },
      },
    ],
    ...(a.alsoKnownAs && { alsoKnownAs: a.alsoKnownAs }),
    ...(a.movedTo && { movedTo: a.movedTo }),
    id: a.id,
    type: "Person",
    preferredUsername: a.username,
    name: a.username,
    url: `${origin}/@${a.username}`,
    inbox: `${a.id}/inbox`,
    outbox: `${a.id}/outbox`,
    followers: `${a.id}/followers`,
    following: `${a.id}/following`,
    featured: `${a.id}/collections/featured`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    manuallyApprovesFollowers: false,
    publicKey: { id: a.keyId, owner: a.id, publicKeyPem: a.publicKeyPem },
  };
}

/** The terms of Pleroma's context that the fixtures use, in a context document of our own. */
const LITEPUB_CONTEXT = {
  "@context": [
    "https://www.w3.org/ns/activitystreams",
    "https://w3id.org/security/v1",
    {
      litepub: "http://litepub.social/ns#",
      ChatMessage: "litepub:ChatMessage",
      EmojiReact: "litepub:EmojiReact",
      directMessage: "litepub:directMessage",
      sensitive: "as:sensitive",
      Emoji: "toot:Emoji",
      Hashtag: "as:Hashtag",
      toot: "http://joinmastodon.org/ns#",
      ostatus: "http://ostatus.org#",
      conversation: "ostatus:conversation",
      "@language": "und",
    },
  ],
};

export async function startRemoteServer(): Promise<RemoteServer> {
  const actors = new Map<string, RemoteActor>();
  let origin = "";
  const remote: RemoteServer = {
    origin: "",
    host: "",
    deliveries: [],
    inboxStatus: 202,
    profiles: new Map(),
    files: new Map(),
    delayMs: 0,
    fileRequests: { count: 0, active: 0, maxActive: 0 },
    documents: new Map(),
    actor(username) {
      let a = actors.get(username);
      if (!a) {
        const id = `${origin}/users/${username}`;
        a = { username, id, keyId: `${id}#main-key`, ...keys() };
        actors.set(username, a);
      }
      return a;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const json = (status: number, body: unknown, type = "application/activity+json") => {
        res.writeHead(status, { "content-type": type });
        res.end(JSON.stringify(body));
      };
      if (req.method === "POST" && url.pathname.endsWith("/inbox")) {
        remote.deliveries.push({ path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(remote.inboxStatus).end();
        return;
      }
      // Pleroma and Akkoma name their own JSON-LD context in every activity, and serve it.
      if (req.method === "GET" && url.pathname === "/schemas/litepub-0.1.jsonld") {
        return json(200, LITEPUB_CONTEXT, "application/ld+json");
      }
      const file = req.method === "GET" ? remote.files.get(url.pathname) : undefined;
      if (file) {
        const seen = remote.fileRequests;
        seen.count++;
        seen.active++;
        seen.maxActive = Math.max(seen.maxActive, seen.active);
        res.once("close", () => seen.active--);
        setTimeout(() => {
          res.writeHead(file.status ?? 200, { "content-type": file.type, "content-length": file.body.length });
          res.end(file.body);
        }, remote.delayMs);
        return;
      }
      const document = req.method === "GET" ? remote.documents.get(url.pathname) : undefined;
      if (document !== undefined) return json(200, document);
      const user = /^\/users\/([\w.-]+)$/.exec(url.pathname)?.[1];
      if (req.method === "GET" && user && actors.has(user)) {
        return json(200, { ...actorDocument(actors.get(user)!, origin), ...remote.profiles.get(user) });
      }
      if (req.method === "GET" && url.pathname === "/.well-known/webfinger") {
        const name = /^acct:([^@]+)@/.exec(url.searchParams.get("resource") ?? "")?.[1];
        const a = name ? actors.get(name) : undefined;
        if (!a) return json(404, { error: "not found" }, "application/json");
        return json(
          200,
          {
            subject: `acct:${a.username}@${remote.host}`,
            links: [{ rel: "self", type: "application/activity+json", href: a.id }],
          },
          "application/jrd+json",
        );
      }
      json(404, { error: "not found" }, "application/json");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  remote.origin = origin;
  remote.host = `127.0.0.1:${port}`;
  return remote;
}

const sha256 = (body: string) => createHash("sha256").update(body).digest("base64");
const rsaSign = (key: KeyObject, text: string) => createSign("RSA-SHA256").update(text).sign(key, "base64");

/**
 * The headers that sign a POST of `body` to `url` as `actor`. `date` may be set to test the window;
 * `tamper` changes the signature after signing (a forgery).
 */
export function signedPostHeaders(
  actor: RemoteActor,
  url: string,
  body: string,
  spec: Spec,
  o: { date?: Date; tamper?: boolean } = {},
): Record<string, string> {
  const target = new URL(url);
  const date = (o.date ?? new Date()).toUTCString();
  const headers: Record<string, string> = { "content-type": "application/activity+json", date, host: target.host };
  let signature: string;
  if (spec === "draft-cavage") {
    headers.digest = `SHA-256=${sha256(body)}`;
    const text = [
      `(request-target): post ${target.pathname}${target.search}`,
      `host: ${target.host}`,
      `date: ${date}`,
      `digest: ${headers.digest}`,
      `content-type: ${headers["content-type"]}`,
    ].join("\n");
    signature = rsaSign(actor.privateKey, text);
    if (o.tamper) signature = rsaSign(actor.privateKey, `${text}x`);
    headers.signature = `keyId="${actor.keyId}",algorithm="rsa-sha256",headers="(request-target) host date digest content-type",signature="${signature}"`;
  } else {
    headers["content-digest"] = `sha-256=:${sha256(body)}:`;
    const created = Math.floor((o.date ?? new Date()).getTime() / 1000);
    const params = `("@method" "@target-uri" "@authority" "content-digest" "date");created=${created};keyid="${actor.keyId}";alg="rsa-v1_5-sha256"`;
    const base = [
      `"@method": POST`,
      `"@target-uri": ${target.href}`,
      `"@authority": ${target.host}`,
      `"content-digest": ${headers["content-digest"]}`,
      `"date": ${date}`,
      `"@signature-params": ${params}`,
    ].join("\n");
    signature = rsaSign(actor.privateKey, o.tamper ? `${base}x` : base);
    headers["signature-input"] = `sig1=${params}`;
    headers.signature = `sig1=:${signature}:`;
  }
  return headers;
}

/** The headers that sign a GET of `url` as `actor` (draft-cavage), as servers sign their fetches. */
export function signedGetHeaders(actor: RemoteActor, url: string): Record<string, string> {
  const target = new URL(url);
  const date = new Date().toUTCString();
  const text = [
    `(request-target): get ${target.pathname}${target.search}`,
    `host: ${target.host}`,
    `date: ${date}`,
  ].join("\n");
  const signature = rsaSign(actor.privateKey, text);
  return {
    accept: "application/activity+json",
    date,
    host: target.host,
    signature: `keyId="${actor.keyId}",algorithm="rsa-sha256",headers="(request-target) host date",signature="${signature}"`,
  };
}

// What stands on the other side of Web Push in the tests: a push service (HTTP on loopback) that keeps
// what it receives, and a subscriber (a browser's or phone's key pair and auth secret) that decrypts
// it, written here from the RFCs with node:crypto: RFC 8291 + RFC 8188 (aes128gcm) and the drafts
// before them (aesgcm), and that checks the VAPID signature (RFC 8292).
import assert from "node:assert/strict";
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PushService {
  url: string;
  received: Received[];
  /** The status (and headers) the service answers on a path, after `delayMs`; 201 at once by default. */
  answer(path: string, status: number, headers?: Record<string, string>, delayMs?: number): void;
  /** The most requests it held at once since the last reset. */
  peak(): number;
  resetPeak(): void;
  /** What arrived on a path. */
  on(path: string): Received[];
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const received: Received[] = [];
  const answers = new Map<string, { status: number; headers: Record<string, string>; delayMs: number }>();
  let inFlight = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers.get(path) ?? { status: 201, headers: {}, delayMs: 0 };
      setTimeout(() => {
        inFlight--;
        res.writeHead(answer.status, answer.headers).end();
      }, answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (path, status, headers = {}, delayMs = 0) => answers.set(path, { status, headers, delayMs }),
    peak: () => peak,
    resetPeak: () => {
      peak = inFlight;
    },
    on: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const b64u = (b: Buffer) => b.toString("base64url");
const fromB64u = (s: string) => Buffer.from(s, "base64url");
const hkdf = (ikm: Buffer, salt: Buffer, info: Buffer, length: number) =>
  Buffer.from(hkdfSync("sha256", ikm, salt, info, length));

/** One subscriber: its P-256 key pair and 16-byte auth secret, as a browser makes them. */
export class Subscriber {
  readonly ecdh = createECDH("prime256v1");
  readonly publicKey: Buffer;
  readonly authSecret = randomBytes(16);

  constructor() {
    this.publicKey = this.ecdh.generateKeys();
  }

  /** The `subscription[keys]` an app sends. */
  get keys() {
    return { p256dh: b64u(this.publicKey), auth: b64u(this.authSecret) };
  }

  /** Decrypts a push, by its Content-Encoding. */
  decrypt(push: Received): string {
    const encoding = push.headers["content-encoding"];
    if (encoding === "aes128gcm") return this.#aes128gcm(push.body);
    if (encoding === "aesgcm") return this.#aesgcm(push);
    throw new Error(`unknown encoding ${encoding}`);
  }

  /** RFC 8291 §3.4 and RFC 8188: the header carries salt, record size and the server's key. */
  #aes128gcm(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const idLength = body[20];
    const serverKey = body.subarray(21, 21 + idLength);
    const ciphertext = body.subarray(21 + idLength);
    const shared = this.ecdh.computeSecret(serverKey);
    const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), this.publicKey, serverKey]);
    const ikm = hkdf(shared, this.authSecret, keyInfo, 32);
    const cek = hkdf(ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16);
    const nonce = hkdf(ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12);
    const plain = gcmOpen(cek, nonce, ciphertext);
    // The last record ends with the delimiter 2, then zero padding.
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end--;
    assert.equal(plain[end], 2, "last-record delimiter");
    return plain.subarray(0, end).toString("utf8");
  }

  /** draft-ietf-webpush-encryption-04: salt and server key in the Encryption and Crypto-Key headers. */
  #aesgcm(push: Received): string {
    const salt = fromB64u(param(push.headers.encryption, "salt"));
    const serverKey = fromB64u(param(push.headers["crypto-key"], "dh"));
    const shared = this.ecdh.computeSecret(serverKey);
    const ikm = hkdf(shared, this.authSecret, Buffer.from("Content-Encoding: auth\0"), 32);
    const length = (key: Buffer) => Buffer.from([0, key.length]);
    const context = Buffer.concat([
      Buffer.from("P-256\0"),
      length(this.publicKey),
      this.publicKey,
      length(serverKey),
      serverKey,
    ]);
    const cek = hkdf(ikm, salt, Buffer.concat([Buffer.from("Content-Encoding: aesgcm\0"), context]), 16);
    const nonce = hkdf(ikm, salt, Buffer.concat([Buffer.from("Content-Encoding: nonce\0"), context]), 12);
    const plain = gcmOpen(cek, nonce, push.body);
    // Two bytes of padding length, then the padding, then the message.
    const padding = plain.readUInt16BE(0);
    return plain.subarray(2 + padding).toString("utf8");
  }
}

function gcmOpen(key: Buffer, nonce: Buffer, sealed: Buffer): Buffer {
  const decipher = createDecipheriv("aes-128-gcm", key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
}

/** `name=value` out of a header of `;`- or `,`-separated parameters. */
function param(header: string | string[] | undefined, name: string): string {
  const text = Array.isArray(header) ? header.join(";") : (header ?? "");
  const m = new RegExp(`(?:^|[;,\\s])${name}=([^;,\\s]+)`).exec(text);
  assert.ok(m, `${name} in ${text}`);
  return m[1];
}

/**
 * Checks the VAPID signature of a push against the server's public key (as /api/v2/instance gives
 * it): `vapid t=…, k=…` for aes128gcm, `WebPush …` with `p256ecdsa=` in Crypto-Key for aesgcm.
 * Returns the JWT's claims.
 */
export function verifyVapid(push: Received, serverKey: string): { aud: string; exp: number; sub: string } {
  const authorization = push.headers.authorization ?? "";
  let jwt: string;
  let key: string;
  if (authorization.startsWith("vapid ")) {
    jwt = param(authorization, "t");
    key = param(authorization, "k");
  } else {
    assert.match(authorization, /^WebPush /);
    jwt = authorization.slice("WebPush ".length);
    key = param(push.headers["crypto-key"], "p256ecdsa");
  }
  assert.equal(key, serverKey);
  const point = fromB64u(key);
  const publicKey = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33, 65)) },
    format: "jwk",
  });
  const [header, claims, signature] = jwt.split(".");
  assert.deepEqual(JSON.parse(fromB64u(header).toString()), { typ: "JWT", alg: "ES256" });
  const valid = verify(
    "sha256",
    Buffer.from(`${header}.${claims}`),
    { key: publicKey, dsaEncoding: "ieee-p1363" },
    fromB64u(signature),
  );
  assert.ok(valid, "VAPID signature");
  return JSON.parse(fromB64u(claims).toString());
}

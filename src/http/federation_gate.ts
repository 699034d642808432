// Who may talk to this server's ActivityPub endpoints, decided before Fedify answers: a server
// refused by policy (a suspended domain, or in limited federation mode one not allowed) gets a 403
// for whatever it delivers; and in secure mode (AUTHORIZED_FETCH) or limited federation mode,
// reading an actor, object or collection needs a request signed by a server that is not refused
// (401 unsigned or unverifiable, 403 refused), as on Mastodon. The instance actor stays readable
// unsigned: other servers fetch its key to check the signed fetches this server makes.
//
// A delivery's body is read here too, before Fedify reads it, checking signatures or not: within
// the bounds of an ActivityPub document (src/federation/document_loader.ts; 413 past its size, 400
// past its nesting, since JSON-LD expansion recurses at every level and a delivery nested a
// thousand deep overflowed the stack, a 500). Fedify then reads the body as read here.
import type { MiddlewareHandler } from "hono";
import { badRequest } from "../domain/errors.ts";
import { jsonExcess } from "../domain/json_shape.ts";
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH } from "../federation/document_loader.ts";
import { signingKey } from "../federation/load.ts";
import { domainPolicy, refusesAny } from "../services/moderation/federation_policy.ts";
import type { AppEnv, Ctx } from "./hono.ts";
import { readBody } from "./params.ts";

const INBOX = /^\/(?:users\/[^/]+\/)?inbox\/?$/;
const READABLE = /^\/(?:users\/|@)/;
const INSTANCE_ACTOR = /^\/users\/instance\.actor\/?$/;
const ACTIVITY_STREAMS = /application\/(?:activity\+json|ld\+json)/;

/** The host of the key a request's signature names (either form), if it names one. */
function signerHost(c: Ctx): string | null {
  const header = `${c.req.header("signature-input") ?? ""} ${c.req.header("signature") ?? ""}`;
  const keyId = /keyId="([^"]+)"/i.exec(header)?.[1];
  if (!keyId) return null;
  try {
    return new URL(keyId).host;
  } catch {
    return null;
  }
}

/** The host of the delivered activity's actor. */
function actorHost(body: string): string | null {
  try {
    const { actor } = JSON.parse(body) as { actor?: unknown };
    const id = typeof actor === "string" ? actor : (actor as { id?: unknown } | undefined)?.id;
    return typeof id === "string" ? new URL(id).host : null;
  } catch {
    return null;
  }
}

/**
 * A delivery as Fedify reads it: its headers as they came, and its body as read here, handed out as
 * often as asked. Fedify clones the request and reads the clone twice (the JSON, then the bytes of
 * the digest), each clone a tee of a stream and each read a pull through it; here a clone is the
 * request itself and a read is of the bytes in hand. In isolation that took a delivery's reading
 * from about 50 µs of CPU to 9; and the request as it came in (its body a stream of the socket,
 * an abort signal) is no longer built only to be replaced. Its headers and body live here, not in
 * the Request underneath: a Request made from this one (`new Request(it)`) would have neither, and
 * neither Fedify nor Rookery makes one from a delivery.
 */
class DeliveredRequest extends Request {
  readonly #headers: Headers;
  readonly #bytes: Buffer<ArrayBuffer>;
  /** The bytes as text, decoded once by the gate. */
  readonly #text: string;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;

  constructor(url: string, headers: Headers, bytes: Buffer<ArrayBuffer>, text: string) {
    super(url, { method: "POST" });
    this.#headers = headers;
    this.#bytes = bytes;
    this.#text = text;
  }

  override get headers(): Headers {
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Blob([this.#bytes]).stream() as ReadableStream<Uint8Array<ArrayBuffer>>;
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return false;
  }

  override clone(): DeliveredRequest {
    return this;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#bytes;
    return buffer.slice(byteOffset, byteOffset + byteLength);
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer());
  }

  override async blob(): Promise<Blob> {
    return new Blob([this.#bytes], { type: this.#headers.get("content-type") ?? "" });
  }

  override async text(): Promise<string> {
    return this.#text;
  }

  override async json(): Promise<unknown> {
    return JSON.parse(this.#text);
  }
}

/** The delivery's body as text, within bounds (see above); the request Fedify gets then carries its bytes as read. */
async function deliveryBody(c: Ctx): Promise<string> {
  const bytes = await readBody(c, MAX_DOCUMENT_BYTES);
  const text = bytes.toString("utf8");
  // The size bounds the number of values.
  if (jsonExcess(text, MAX_DOCUMENT_DEPTH, Number.POSITIVE_INFINITY)) {
    throw badRequest(`Invalid activity: nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  }
  // The bytes, not the text: the signature's digest is of the bytes sent.
  c.req.raw = new DeliveredRequest(c.req.url, c.req.raw.headers, bytes, text);
  return text;
}

async function refused(c: Ctx, host: string | null): Promise<boolean> {
  return host !== null && (await domainPolicy(c.get("rt"), host)).refused;
}

const refusal = (c: Ctx) => c.json({ error: "This server does not federate with yours" }, 403);

export const federationGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path;
  const method = c.req.method;
  if (method === "POST" && INBOX.test(path)) {
    const body = await deliveryBody(c);
    if (!(await refusesAny(c.get("rt")))) return next();
    if ((await refused(c, signerHost(c))) || (await refused(c, actorHost(body)))) return refusal(c);
    return next();
  }
  const config = c.get("rt").config;
  const read = (method === "GET" || method === "HEAD") && READABLE.test(path) && !INSTANCE_ACTOR.test(path);
  if (!read || !ACTIVITY_STREAMS.test(c.req.header("accept") ?? "")) return next();
  if (!config.authorizedFetch && !config.limitedFederation) return next();
  const key = signerHost(c) ? await signingKey(config, c.req.raw.clone()) : null;
  if (!key) return c.json({ error: "Request not signed" }, 401);
  if (await refused(c, key.id?.host ?? signerHost(c))) return refusal(c);
  return next();
};

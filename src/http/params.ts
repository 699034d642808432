// Request parameters the way Mastodon (Rails) reads them: query string and body merged into one
// nested object, from JSON, form-encoded or multipart bodies, with Rack's bracket keys
// (`media_ids[]`, `poll[options][]`, `source[privacy]`, `fields_attributes[0][name]`).
// Everything a request sends passes through here, so the structural limits live here too: nesting
// depth, number of values, NUL bytes and string size are refused before any route sees them.
import type { HttpBindings } from "@hono/node-server";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, badRequest } from "../domain/errors.ts";
import { jsonExcess } from "../domain/json_shape.ts";
import { Upload } from "../domain/uploads.ts";
import { boundaryOf, MalformedMultipart, parseMultipart } from "./multipart.ts";

export type Params = Record<string, unknown>;

/** Bodies other than multipart: enough for a data: URI avatar, far more than any text field needs. */
export const MAX_BODY_BYTES = 24 * 1024 * 1024;

/** Rack 3's `param_depth_limit`: `a[b][c]` is 3 deep, and so is `{"a": {"b": {"c": 1}}}`. */
export const MAX_DEPTH = 32;

/** Rack 3.1's `params_limit`: values (and containers) one request may send. */
export const MAX_VALUES = 4096;

/**
 * No string parameter is longer than this (in UTF-16 units), whatever its own maximum; only the
 * base64 `data:` URIs of a profile's avatar and header (files by another name) may be larger.
 */
export const MAX_STRING_LENGTH = 100_000;

const FILE_KEYS = new Set(["avatar", "header", "file", "thumbnail"]);

const tooDeep = () => badRequest(`Invalid request parameters: nested deeper than ${MAX_DEPTH} levels`);
const tooMany = () => badRequest(`Invalid request parameters: more than ${MAX_VALUES} values`);

/**
 * A Rack-style key's parts (`a[b][]` → `["a", "b", ""]`), or null for a plain or malformed key,
 * which is kept as it is. One pass over the key, refusing it once it is too deep.
 */
function keyPath(key: string): string[] | null {
  const open = key.indexOf("[");
  if (open <= 0) return null;
  const base = key.slice(0, open);
  if (base.includes("]")) return null;
  const path = [base];
  let at = open;
  while (at < key.length) {
    if (key[at] !== "[") return null;
    const close = key.indexOf("]", at + 1);
    if (close < 0) return null;
    const part = key.slice(at + 1, close);
    if (part.includes("[")) return null;
    path.push(part);
    if (path.length > MAX_DEPTH) throw tooDeep();
    at = close + 1;
  }
  return path;
}

/**
 * Sets `value` at a Rack-style key. `a[b][]` appends to an array; a run of `a[][x]`, `a[][y]`
 * builds one element until a key repeats, as Rack does.
 */
export function setNested(target: Params, key: string, value: unknown): void {
  const path = keyPath(key) ?? [key];
  // `__proto__` would replace an object's prototype instead of naming a parameter.
  if (path.includes("__proto__")) return;
  let node: Params | unknown[] = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    const last = i === path.length - 1;
    if (Array.isArray(node)) {
      // part === "" here: an array step.
      if (last) {
        node.push(value);
        return;
      }
      const tail: unknown = node[node.length - 1];
      if (path[i + 1] !== "" && isObject(tail) && !hasPath(tail, path, i + 1)) {
        node = tail;
      } else {
        const fresh = path[i + 1] === "" ? [] : {};
        node.push(fresh);
        node = fresh;
      }
      continue;
    }
    if (last) {
      node[part] = value;
      return;
    }
    const wantArray = path[i + 1] === "";
    let next = node[part];
    if (wantArray ? !Array.isArray(next) : !isObject(next)) {
      next = wantArray ? [] : {};
      node[part] = next;
    }
    node = next as Params | unknown[];
  }
}

/** Whether `obj` already holds `path` from `from` on (then Rack starts a new array element). */
function hasPath(obj: Params, path: string[], from: number): boolean {
  let node: unknown = obj;
  for (let i = from; i < path.length; i++) {
    const part = path[i];
    if (part === "" || !isObject(node) || !Object.hasOwn(node, part)) return false;
    node = node[part];
  }
  return true;
}

export function isObject(v: unknown): v is Params {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Upload);
}

function fromPairs(pairs: Iterable<[string, unknown]>): Params {
  const out: Params = {};
  let count = 0;
  for (const [k, v] of pairs) {
    if (++count > MAX_VALUES) throw tooMany();
    setNested(out, k, v);
  }
  return bounded(out);
}

export function fromSearchParams(search: URLSearchParams): Params {
  return fromPairs(search);
}

/**
 * Refuses what no route may receive, in one walk over the parsed parameters: more than
 * MAX_VALUES values, nesting beyond MAX_DEPTH, NUL bytes (PostgreSQL cannot store them) and
 * strings beyond MAX_STRING_LENGTH.
 */
function bounded(params: Params): Params {
  const stack: [unknown, number, string][] = [[params, 0, ""]];
  let count = 0;
  while (stack.length > 0) {
    const [node, depth, key] = stack.pop()!;
    if (++count > MAX_VALUES + 1) throw tooMany();
    if (typeof node === "string") {
      checkString(node, key, depth === 1 && FILE_KEYS.has(key) && node.startsWith("data:"));
    } else if (Array.isArray(node)) {
      if (depth >= MAX_DEPTH) throw tooDeep();
      for (const item of node) stack.push([item, depth + 1, key]);
    } else if (isObject(node)) {
      if (depth >= MAX_DEPTH) throw tooDeep();
      for (const [k, v] of Object.entries(node)) {
        checkString(k, k, false);
        stack.push([v, depth + 1, k]);
      }
    }
  }
  return params;
}

function checkString(value: string, name: string, isFile: boolean): void {
  if (value.includes("\0"))
    throw badRequest(`Invalid request parameters: ${name || "a parameter"} contains a NUL byte`);
  if (!isFile && value.length > MAX_STRING_LENGTH) {
    throw new ApiError(422, `Validation failed: ${name} is too long (maximum is ${MAX_STRING_LENGTH} characters)`);
  }
}

/**
 * Path segments and the query string are read in many places (`c.req.param`, `c.req.query`, pages):
 * refuse an encoded NUL byte in the URL once, before any of them.
 */
export const refuseNulInUrl: MiddlewareHandler = async (c, next) => {
  if (/%00/i.test(c.req.url)) throw badRequest("Invalid request parameters: the URL contains a NUL byte");
  await next();
};

/** Refuses a JSON text nested deeper than MAX_DEPTH or holding too many values, in one pass, before parsing it. */
function checkJsonShape(text: string): void {
  const excess = jsonExcess(text, MAX_DEPTH, MAX_VALUES);
  if (excess === "depth") throw tooDeep();
  if (excess === "values") throw tooMany();
}

/**
 * Keeps integers beyond 2^53 exact as their source text: clients such as Mastodon.py send ids as
 * JSON numbers (`{"last_read_id": 117671824106241024}`), which a double would round.
 */
function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)) {
    return context.source;
  }
  return value;
}

export function parseJson(text: string): unknown {
  checkJsonShape(text);
  // The reviver costs (a 30-fold slower parse): only a text with 16 digits in a row can hold an
  // integer beyond 2^53.
  const reviver = /\d{16}/.test(text) ? (exactIntegers as (key: string, value: unknown) => unknown) : undefined;
  try {
    return JSON.parse(text, reviver);
  } catch {
    throw badRequest("Error while parsing request body: invalid JSON");
  }
}

/** JSON bodies may also use bracket keys (`"media_ids[]": [...]`): fold them the same way. */
function fromJson(value: unknown): Params {
  if (!isObject(value)) throw badRequest("Request body must be a JSON object");
  const out: Params = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.endsWith("[]") && Array.isArray(v)) {
      for (const item of v) setNested(out, k, item);
    } else {
      setNested(out, k, v);
    }
  }
  return bounded(out);
}

const tooLarge = () => new ApiError(413, "Request body is too large");

/**
 * The body's chunks: from Node's request itself when the body has not been touched (as the
 * server runs), else from the fetch API's stream, which copies each chunk it passes on.
 */
function bodyChunks(c: Context): AsyncIterable<Uint8Array> | null {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (incoming && !incoming.readableDidRead) return incoming;
  return c.req.raw.body as unknown as AsyncIterable<Uint8Array> | null;
}

/** Bodies from this size up get memory of their own, given back when the request ends (releaseBody). */
const RELEASED_BODY_BYTES = 64 * 1024;
const RELEASED = "releasedBody";

/**
 * The body, within `limit` bytes. With a declared length (the usual case), each chunk is copied
 * once, as it arrives, into one buffer of that length: a 4 MB photo used to be copied by the fetch
 * API's stream and again by concatenation, and every copy is fresh memory for V8 to account,
 * which brings its next full collection closer.
 */
export async function readBody(c: Context, limit: number): Promise<Buffer<ArrayBuffer>> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  const chunks = bodyChunks(c);
  if (!chunks) return Buffer.alloc(0);
  if (declared > 0) {
    // A large body never comes from Node's shared pool of small buffers, which must not be released.
    const large = declared >= RELEASED_BODY_BYTES;
    const body = large ? Buffer.allocUnsafeSlow(declared) : Buffer.allocUnsafe(declared);
    if (large) c.set(RELEASED as never, body as never);
    let size = 0;
    for await (const chunk of chunks) {
      if (size + chunk.byteLength > declared) throw badRequest("Request body is longer than its Content-Length");
      body.set(chunk, size);
      size += chunk.byteLength;
    }
    return body.subarray(0, size);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/**
 * Gives back a large body's memory once its request has been answered, by detaching it: otherwise
 * it would outlive the request until V8's next full collection, which every few uploads of a 4 MB
 * photo (kept alive through its processing) would bring on. Uploads are views of the body and go
 * with it, so nothing may keep one past its request (files are processed or stored before the answer).
 */
export function releaseBody(c: Context): void {
  const body = c.get(RELEASED as never) as Buffer<ArrayBuffer> | undefined;
  body?.buffer.transfer(0);
}

/**
 * A multipart body, within `limit` bytes: read into one buffer (readBody), then parsed in place,
 * so that a file part is a view of that buffer rather than a copy.
 */
async function multipartParts(c: Context, limit: number): Promise<[string, unknown][]> {
  const boundary = boundaryOf(c.req.header("content-type") ?? "");
  try {
    if (!boundary) throw new MalformedMultipart("no boundary");
    return parseMultipart(await readBody(c, limit), boundary);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw badRequest("Error while parsing request body: malformed multipart data");
  }
}

/** The body's parameters, parsed once per request. */
export async function bodyParams(c: Context, multipartLimit: number): Promise<Params> {
  const cached = c.get("bodyParams" as never) as Params | undefined;
  if (cached) return cached;
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let params: Params = {};
  if (type === "application/json" || type.endsWith("+json")) {
    const bytes = await readBody(c, MAX_BODY_BYTES);
    if (bytes.byteLength > 0) {
      params = fromJson(parseJson(new TextDecoder().decode(bytes)));
    }
  } else if (type === "application/x-www-form-urlencoded") {
    const bytes = await readBody(c, MAX_BODY_BYTES);
    params = fromSearchParams(new URLSearchParams(new TextDecoder().decode(bytes)));
  } else if (type === "multipart/form-data") {
    params = fromPairs(await multipartParts(c, multipartLimit));
  }
  c.set("bodyParams" as never, params as never);
  return params;
}

/**
 * Query and body merged, the body winning, as Rails merges them. Rails reads a body on any method,
 * a GET's included: Mastodon.py sends the parameters of some GETs (`familiar_followers`' `id[]`) as
 * a JSON body. A GET without a body has no content type and costs nothing more.
 */
export async function requestParams(c: Context, multipartLimit: number): Promise<Params> {
  const query = fromSearchParams(new URL(c.req.url).searchParams);
  const body = await bodyParams(c, multipartLimit);
  return Object.keys(body).length === 0 ? query : { ...query, ...body };
}

/**
 * A file parameter: an uploaded file, or a base64 `data:` URI (some clients send avatars that way).
 * Returns null for an absent or empty value.
 */
export function fileParam(value: unknown, name: string): Upload | null {
  if (value instanceof Upload) return value.size > 0 ? value : null;
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "string") {
    const m = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(value);
    if (m) {
      const bytes = Buffer.from(m[2], "base64");
      if (bytes.byteLength === 0) return null;
      return new Upload(bytes, name, m[1] ?? "application/octet-stream");
    }
  }
  throw new ApiError(422, `Validation failed: ${name} must be a file or a base64 data: URI`);
}

// Request parameters the way Mastodon (Rails) reads them: query string and body merged into one
// nested object, from JSON, form-encoded or multipart bodies, with Rack's bracket keys
// (`media_ids[]`, `poll[options][]`, `source[privacy]`, `fields_attributes[0][name]`).
import type { Context } from "hono";
import { ApiError, badRequest } from "../domain/errors.ts";

export type Params = Record<string, unknown>;

/** Bodies other than multipart: enough for a data: URI avatar, far more than any text field needs. */
export const MAX_BODY_BYTES = 24 * 1024 * 1024;

/**
 * Sets `value` at a Rack-style key. `a[b][]` appends to an array; a run of `a[][x]`, `a[][y]`
 * builds one element until a key repeats, as Rack does.
 */
export function setNested(target: Params, key: string, value: unknown): void {
  const match = /^([^[\]]*)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match || match[1] === "") {
    target[key] = value;
    return;
  }
  const path = [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
  assign(target, path, value);
}

// Rack's normalize_params, iteratively: objects for named parts, arrays for "[]".
function assign(target: Params | unknown[], path: string[], value: unknown): void {
  const [head, ...rest] = path;
  if (Array.isArray(target)) {
    // head === "" here: an array step.
    if (rest.length === 0) {
      target.push(value);
      return;
    }
    const last = target[target.length - 1];
    const child = rest[0];
    if (child !== "" && isObject(last) && !hasPath(last, rest)) {
      assign(last, rest, value);
    } else {
      const fresh = child === "" ? [] : {};
      target.push(fresh);
      assign(fresh as Params, rest, value);
    }
    return;
  }
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const wantArray = rest[0] === "";
  let next = target[head];
  if (wantArray ? !Array.isArray(next) : !isObject(next)) {
    next = wantArray ? [] : {};
    target[head] = next;
  }
  assign(next as Params | unknown[], rest, value);
}

function hasPath(obj: Params, path: string[]): boolean {
  let node: unknown = obj;
  for (const part of path) {
    if (part === "" || !isObject(node) || !(part in node)) return false;
    node = node[part];
  }
  return true;
}

export function isObject(v: unknown): v is Params {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Blob);
}

export function fromSearchParams(search: URLSearchParams): Params {
  const out: Params = {};
  for (const [k, v] of search) setNested(out, k, v);
  return out;
}

export function fromFormData(form: FormData): Params {
  const out: Params = {};
  for (const [k, v] of form) setNested(out, k, v);
  return out;
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
  return out;
}

async function readBody(request: Request, limit: number): Promise<Buffer<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw new ApiError(413, "Request body is too large");
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new ApiError(413, "Request body is too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The body's parameters, parsed once per request. */
export async function bodyParams(c: Context, multipartLimit: number): Promise<Params> {
  const cached = c.get("bodyParams" as never) as Params | undefined;
  if (cached) return cached;
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let params: Params = {};
  if (type === "application/json" || type.endsWith("+json")) {
    const bytes = await readBody(c.req.raw, MAX_BODY_BYTES);
    if (bytes.byteLength > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        throw badRequest("Error while parsing request body: invalid JSON");
      }
      params = fromJson(parsed);
    }
  } else if (type === "application/x-www-form-urlencoded") {
    const bytes = await readBody(c.req.raw, MAX_BODY_BYTES);
    params = fromSearchParams(new URLSearchParams(new TextDecoder().decode(bytes)));
  } else if (type === "multipart/form-data") {
    const bytes = await readBody(c.req.raw, multipartLimit);
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { "content-type": c.req.header("content-type")! } }).formData();
    } catch {
      throw badRequest("Error while parsing request body: malformed multipart data");
    }
    params = fromFormData(form);
  }
  c.set("bodyParams" as never, params as never);
  return params;
}

/** Query and body merged, the body winning, as Rails merges them. */
export async function requestParams(c: Context, multipartLimit: number): Promise<Params> {
  const query = fromSearchParams(new URL(c.req.url).searchParams);
  const method = c.req.method;
  if (method === "GET" || method === "HEAD") return query;
  return { ...query, ...(await bodyParams(c, multipartLimit)) };
}

/**
 * A file parameter: an uploaded file, or a base64 `data:` URI (some clients send avatars that way).
 * Returns null for an absent or empty value.
 */
export function fileParam(value: unknown, name: string): File | null {
  if (value instanceof File) return value.size > 0 ? value : null;
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "string") {
    const m = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w-]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(value);
    if (m) {
      const bytes = Buffer.from(m[2], "base64");
      if (bytes.byteLength === 0) return null;
      return new File([bytes], name, { type: m[1] ?? "application/octet-stream" });
    }
  }
  throw new ApiError(422, `Validation failed: ${name} must be a file or a base64 data: URI`);
}

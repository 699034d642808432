// multipart/form-data bodies (RFC 7578), parsed from the one buffer the body was read into: a file
// part becomes an Upload viewing its bytes in place. The parts' headers are read as UTF-8, as
// browsers and HTTP libraries send them.
import { Upload } from "../domain/uploads.ts";

export class MalformedMultipart extends Error {}

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const HEADERS_END = Buffer.from("\r\n\r\n");

/** The boundary named by a `multipart/form-data` content type, or null. */
export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]!) : null;
}

/** The body's parts in order: text fields as strings, parts with a filename as Uploads. */
export function parseMultipart(body: Buffer, boundary: string): [string, string | Upload][] {
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`);
  // A preamble may come before the first delimiter.
  let at = 0;
  if (!body.subarray(0, delimiter.length).equals(delimiter)) {
    const first = body.indexOf(nextDelimiter);
    if (first < 0) throw new MalformedMultipart("no delimiter");
    at = first + 2;
  }
  const parts: [string, string | Upload][] = [];
  for (;;) {
    at += delimiter.length;
    if (body[at] === DASH && body[at + 1] === DASH) return parts;
    // Transport padding (RFC 2046) before the line break.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body[at] !== CR || body[at + 1] !== LF) throw new MalformedMultipart("no line break after a delimiter");
    at += 2;
    // A part without headers starts with its blank line.
    const headersEnd = body.indexOf(HEADERS_END, at - 2);
    if (headersEnd < 0) throw new MalformedMultipart("unterminated headers");
    const headers = headersEnd < at ? "" : body.toString("utf8", at, headersEnd);
    const contentStart = headersEnd + 4;
    const contentEnd = body.indexOf(nextDelimiter, contentStart);
    if (contentEnd < 0) throw new MalformedMultipart("unterminated part");
    parts.push(part(headers, body.subarray(contentStart, contentEnd)));
    at = contentEnd + 2;
  }
}

function part(headers: string, content: Buffer): [string, string | Upload] {
  let disposition: string | null = null;
  let type = "application/octet-stream";
  for (const line of headers.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MalformedMultipart("a header line without a name");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-disposition") disposition = value;
    else if (name === "content-type" && value !== "") type = value;
  }
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) throw new MalformedMultipart("not a form-data part");
  const params = dispositionParams(disposition);
  const name = params.get("name");
  if (name === undefined) throw new MalformedMultipart("a part without a name");
  const filename = params.get("filename*") ?? params.get("filename");
  if (filename === undefined) return [name, content.toString("utf8")];
  return [name, new Upload(content, filename, type)];
}

/** `name="a"; filename="b.jpg"; filename*=UTF-8''b%C3%A9.jpg` → a map (quoted strings unescaped). */
function dispositionParams(disposition: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const m of disposition.matchAll(/;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const key = m[1]!.toLowerCase();
    let value = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!.trim();
    if (key.endsWith("*")) {
      const extended = /^[\w-]*'[\w-]*'(.*)$/.exec(value);
      try {
        value = decodeURIComponent(extended ? extended[1]! : value);
      } catch {
        continue;
      }
    }
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

// An in-process S3-compatible server for the storage tests: the part of the S3 protocol Rookery uses
// (PUT, GET, HEAD and DELETE of objects, path-style), keeping objects in memory. Every signed request
// is verified as S3 does (AWS Signature Version 4: canonical request, scope, signing key, payload
// hash, clock skew); an unsigned GET is allowed only for an object stored with `x-amz-acl: public-read`.
// No S3 server in the npm registry verifies version 4 signatures (s3rver accepts any), hence this one.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StoredObject {
  data: Buffer;
  contentType: string;
  cacheControl: string | null;
  publicRead: boolean;
}

export interface S3TestServer {
  endpoint: string;
  objects: Map<string, StoredObject>;
  /** Requests refused, with the reason (for the tests to check). */
  refused: string[];
  close(): Promise<void>;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

function error(res: ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** RFC 3986 encoding of a query component, as SigV4's canonical query string wants it. */
const encode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Checks a request's SigV4 signature; returns null when it holds, else why not. */
function verify(
  req: IncomingMessage,
  body: Buffer,
  credentials: { accessKeyId: string; secretAccessKey: string; region: string },
): string | null {
  const auth = req.headers.authorization ?? "";
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return "malformed Authorization";
  const [, keyId, day, region, signedHeaders, signature] = m;
  if (keyId !== credentials.accessKeyId) return "unknown access key";
  if (region !== credentials.region) return "wrong region";
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== day) return "bad x-amz-date";
  const at = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  if (Math.abs(Date.now() - at) > 15 * 60_000) return "request time too skewed";
  const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256(body)) return "payload hash mismatch";
  const names = signedHeaders!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) return "host and x-amz-date must be signed";
  const url = new URL(req.url ?? "/", "http://s3.invalid");
  const query = [...url.searchParams]
    .map(([k, v]) => [encode(k), encode(v)])
    .sort(([a, x], [b, y]) => (a! < b! ? -1 : a! > b! ? 1 : x! < y! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const headers = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const canonical = [req.method, url.pathname, query, headers, signedHeaders, payloadHash].join("\n");
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day!), region!), "s3"), "aws4_request");
  const expected = hmac(key, toSign);
  return timingSafeEqual(expected, Buffer.from(signature!, "hex")) ? null : "signature does not match";
}

export async function startS3Server(options: {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}): Promise<S3TestServer> {
  const objects = new Map<string, StoredObject>();
  const refused: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = new URL(req.url ?? "/", "http://s3.invalid").pathname;
    const [, bucket, ...rest] = path.split("/");
    const key = rest.map(decodeURIComponent).join("/");
    if (bucket !== options.bucket) return error(res, 404, "NoSuchBucket", "The specified bucket does not exist");
    const signed = req.headers.authorization !== undefined;
    if (signed) {
      const problem = verify(req, body, options);
      if (problem) {
        refused.push(`${req.method} ${key}: ${problem}`);
        return error(res, 403, "SignatureDoesNotMatch", problem);
      }
    }
    const object = objects.get(key);
    switch (req.method) {
      case "PUT":
        if (!signed) return error(res, 403, "AccessDenied", "Access Denied");
        objects.set(key, {
          data: body,
          contentType: String(req.headers["content-type"] ?? "binary/octet-stream"),
          cacheControl: req.headers["cache-control"] ?? null,
          publicRead: req.headers["x-amz-acl"] === "public-read",
        });
        res.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` });
        return res.end();
      case "GET":
      case "HEAD":
        if (!object) return error(res, 404, "NoSuchKey", "The specified key does not exist.");
        if (!signed && !object.publicRead) return error(res, 403, "AccessDenied", "Access Denied");
        res.writeHead(200, {
          "content-type": object.contentType,
          "content-length": object.data.byteLength,
          ...(object.cacheControl ? { "cache-control": object.cacheControl } : {}),
        });
        return res.end(req.method === "GET" ? object.data : undefined);
      case "DELETE":
        if (!signed) return error(res, 403, "AccessDenied", "Access Denied");
        objects.delete(key);
        res.writeHead(204);
        return res.end();
      default:
        return error(res, 405, "MethodNotAllowed", "The specified method is not allowed");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    objects,
    refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

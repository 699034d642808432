// Where uploaded files live: under DATA_DIR/media, served by Rookery at /system/, or in an
// S3-compatible bucket (S3_ENABLED). Keys are random and never reused, so files can be cached for ever.
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { Config, S3Config } from "../config.ts";
import { urls } from "../domain/urls.ts";

export interface Storage {
  readonly kind: "local" | "s3";
  put(key: string, data: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
  /** The size in bytes of the file stored under `key`, or 0 when there is none. */
  size(key: string): Promise<number>;
  /** Where clients fetch the file stored under `key`. */
  url(key: string): string;
}

/** Uploads waiting for a job to process them: kept in storage (any process's worker may run the job), never served. */
export const PENDING_PREFIX = "pending/";
/** Archives of accounts: downloaded through their owner's settings page, never served under /system/. */
export const ARCHIVES_PREFIX = "archives/";

export function mediaRoot(config: Config): string {
  return join(config.dataDir, "media");
}

const cache = new WeakMap<Config, Storage>();

export function mediaStorage(config: Config): Storage {
  let storage = cache.get(config);
  if (!storage) {
    storage = config.media.s3 ? s3Storage(config.media.s3) : localStorage(config);
    cache.set(config, storage);
  }
  return storage;
}

function localStorage(config: Config): Storage {
  const root = resolve(mediaRoot(config));
  const pathOf = (key: string) => {
    const path = resolve(root, key);
    if (!path.startsWith(`${root}/`)) throw new Error(`Storage key outside the media folder: ${key}`);
    return path;
  };
  const u = urls(config);
  return {
    kind: "local",
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
    },
    get: (key) => readFile(pathOf(key)),
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    size: (key) =>
      stat(pathOf(key)).then(
        (s) => s.size,
        () => 0,
      ),
    url: (key) => u.media(key),
  };
}

const encodeKey = (key: string) => key.split("/").map(encodeURIComponent).join("/");

/** The S3 client is loaded only when S3 is configured, so that small installs never load it. */
function s3Storage(s3: S3Config): Storage {
  // Path-style for S3-compatible servers (MinIO, Garage…); the bucket's own host on AWS.
  const base = s3.endpoint
    ? `${s3.endpoint}/${encodeURIComponent(s3.bucket)}`
    : `https://${s3.bucket}.s3.${s3.region}.amazonaws.com`;
  const publicBase = s3.publicUrl ?? base;
  let client: Promise<import("aws4fetch").AwsClient> | null = null;
  const signed = async (method: string, key: string, init: RequestInit = {}) => {
    client ??= import("aws4fetch").then(
      ({ AwsClient }) =>
        new AwsClient({
          accessKeyId: s3.accessKeyId,
          secretAccessKey: s3.secretAccessKey,
          service: "s3",
          region: s3.region,
        }),
    );
    const res = await (await client).fetch(`${base}/${encodeKey(key)}`, { ...init, method });
    if (!res.ok && !(method === "DELETE" && res.status === 404)) {
      const detail = (await res.text()).slice(0, 300);
      throw new Error(`S3 ${method} ${key}: ${res.status} ${detail}`);
    }
    return res;
  };
  return {
    kind: "s3",
    async put(key, data, contentType) {
      const headers: Record<string, string> = {
        "content-type": contentType,
        "cache-control": "public, max-age=31536000, immutable",
      };
      if (s3.permission) headers["x-amz-acl"] = s3.permission;
      await signed("PUT", key, { body: new Uint8Array(data), headers });
    },
    async get(key) {
      return Buffer.from(await (await signed("GET", key)).arrayBuffer());
    },
    async delete(key) {
      await (await signed("DELETE", key)).body?.cancel();
    },
    async size(key) {
      const res = await signed("HEAD", key).catch(() => null);
      return Number(res?.headers.get("content-length") ?? 0);
    },
    url: (key) => `${publicBase}/${encodeKey(key)}`,
  };
}

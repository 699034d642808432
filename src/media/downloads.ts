// Downloading other servers' media: through src/net (its address rules, a deadline, a byte cap),
// at most DOWNLOADS_PER_HOST at once from one host in this process, as Mastodon's workers go easy
// on a server that every follower of a popular account would otherwise fetch from at the same time.
import type { Config } from "../config.ts";
import { FetchError } from "../net/fetch.ts";
import { outgoing } from "../net/outgoing.ts";
import { limiter } from "./limiter.ts";

export const DOWNLOADS_PER_HOST = 4;
/** Long enough for a 99 MB video over a slow link; a peer that trickles slower is dropped. */
const TIMEOUT_MS = 120_000;

const hosts = new Map<string, ReturnType<typeof limiter>>();
const waiting = new Map<string, number>();

/** Runs `work` once fewer than DOWNLOADS_PER_HOST downloads from `host` run; forgets idle hosts. */
async function withHostSlot<T>(host: string, work: () => Promise<T>): Promise<T> {
  let slots = hosts.get(host);
  if (!slots) {
    slots = limiter(DOWNLOADS_PER_HOST);
    hosts.set(host, slots);
  }
  waiting.set(host, (waiting.get(host) ?? 0) + 1);
  try {
    return await slots(work);
  } finally {
    const left = (waiting.get(host) ?? 1) - 1;
    if (left === 0) {
      waiting.delete(host);
      hosts.delete(host);
    } else waiting.set(host, left);
  }
}

/** Why a download gave nothing: `refused` will not change on a retry, `unavailable` may. */
export class DownloadError extends Error {
  readonly permanent: boolean;
  constructor(permanent: boolean, message: string) {
    super(message);
    this.permanent = permanent;
  }
}

/** The bytes at `url`, at most `maxBytes` of them. */
export async function download(config: Config, url: string, maxBytes: number): Promise<Buffer> {
  let host: string;
  try {
    host = new URL(url).host.toLowerCase();
  } catch {
    throw new DownloadError(true, `Not a URL: ${url.slice(0, 200)}`);
  }
  const res = await withHostSlot(host, () =>
    outgoing(config)(url, { timeoutMs: TIMEOUT_MS, maxBytes, headers: { accept: "image/*, video/*, audio/*" } }),
  ).catch((error: unknown) => {
    if (error instanceof FetchError) {
      const permanent = error.reason === "refused" || error.reason === "too_large";
      throw new DownloadError(permanent, error.message);
    }
    throw error;
  });
  if (res.status !== 200) {
    // A file that is gone or forbidden stays so; a server error or a throttle may pass.
    const permanent = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
    throw new DownloadError(permanent, `${host} answered ${res.status} for ${url.slice(0, 200)}`);
  }
  return res.body;
}

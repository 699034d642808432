// The one way Rookery makes requests to other machines (push services now; federation, link
// previews and remote media later). A host's addresses are resolved once per connection, every one
// of them is checked, and the connection goes to a checked address: a name that answers a public
// address to a check and a private one to the connection (DNS rebinding) gets nowhere. Redirects are
// followed a few hops, each checked the same way; the whole exchange has a deadline and the response
// a size cap.
import { promises as dns, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isPublicAddress } from "./addresses.ts";

export interface FetcherOptions {
  /** Allow plain http and private, loopback and link-local peers (ALLOW_PRIVATE_ADDRESSES): tests, local federation. */
  allowPrivateAddresses: boolean;
  userAgent: string;
  /** Resolves a host name to its addresses (tests replace the system resolver). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
  /** Which addresses may be connected to (tests narrow it); by default public ones, or all when private are allowed. */
  allowAddress?: (address: string) => boolean;
}

export interface FetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** For the whole exchange, redirects included. */
  timeoutMs?: number;
  /** The most response body bytes read. */
  maxBytes?: number;
  maxRedirects?: number;
}

export interface FetchResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Where the response came from, after redirects. */
  url: string;
}

export type FetchFailure = "refused" | "timeout" | "too_large" | "too_many_redirects" | "network";

export class FetchError extends Error {
  readonly reason: FetchFailure;
  constructor(reason: FetchFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

export type Fetch = (url: string, options?: FetchOptions) => Promise<FetchResponse>;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemResolve = (host: string) => dns.lookup(host, { all: true, verbatim: true });

export function createFetcher(options: FetcherOptions): Fetch {
  const resolve = options.resolve ?? systemResolve;
  const allow = options.allowAddress ?? (options.allowPrivateAddresses ? () => true : isPublicAddress);
  const schemes = options.allowPrivateAddresses ? ["https:", "http:"] : ["https:"];

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !allow(a.address));
        if (addresses.length === 0) callback(new FetchError("network", `${hostname} has no address`), "", 4);
        else if (refused) callback(refusedAddress(hostname, refused.address), "", 4);
        else if (lookupOptions.all) (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => callback(new FetchError("network", `${hostname}: ${error.message}`), "", 4),
    );
  };
  // Kept-alive connections were made to checked addresses, so reusing them is safe.
  const agents = {
    "http:": new http.Agent({ keepAlive: true, lookup }),
    "https:": new https.Agent({ keepAlive: true, lookup }),
  };

  /** Refuses a URL before connecting: its scheme, and its host when that is an address already. */
  function check(url: URL): void {
    if (!schemes.includes(url.protocol)) throw new FetchError("refused", `${url.protocol} URLs are not fetched`);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (/^[\d.]+$|:/.test(host) && !allow(host)) throw refusedAddress(host, host);
  }

  return async (target, fetchOptions = {}) => {
    const signal = AbortSignal.timeout(fetchOptions.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const maxBytes = fetchOptions.maxBytes ?? DEFAULT_MAX_BYTES;
    let redirectsLeft = fetchOptions.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    let url = parseUrl(target);
    let method = (fetchOptions.method ?? "GET").toUpperCase();
    let body = fetchOptions.body;
    for (;;) {
      check(url);
      const headers: Record<string, string> = { "user-agent": options.userAgent, ...fetchOptions.headers };
      if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
      const response = await exchange(url, { method, headers, body, signal, maxBytes, agents });
      const location = response.headers.location;
      if (!REDIRECTS.has(response.status) || !location) return response;
      if (redirectsLeft-- <= 0) throw new FetchError("too_many_redirects", `Too many redirects from ${target}`);
      url = parseUrl(location, url);
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
      if (response.status === 303 || (method === "POST" && response.status <= 302)) {
        method = "GET";
        body = undefined;
      }
    }
  };
}

function refusedAddress(host: string, address: string): FetchError {
  return new FetchError("refused", `${host} resolves to ${address}, a private or reserved address`);
}

function parseUrl(text: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new FetchError("refused", `Not a URL: ${text.slice(0, 200)}`);
  }
}

interface Exchange {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | string | undefined;
  signal: AbortSignal;
  maxBytes: number;
  agents: { "http:": http.Agent; "https:": https.Agent };
}

/**
 * One request and its response. A kept-alive connection that the other side closed as idle just as
 * the request went out on it is reset before any answer (a process busy for a few seconds reuses
 * connections the other side has given up on): the request then goes again on another connection,
 * as Node's documentation advises. The other side closed it without reading the request.
 */
function exchange(url: URL, x: Exchange): Promise<FetchResponse> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => reject(asFetchError(error, x.signal, url));
    const client = url.protocol === "https:" ? https : http;
    const send = () => {
      let answered = false;
      const request = client.request(
        url,
        { method: x.method, headers: x.headers, agent: x.agents[url.protocol as "http:"], signal: x.signal },
        (response) => {
          answered = true;
          const declared = Number(response.headers["content-length"]);
          if (declared > x.maxBytes) {
            response.destroy();
            return reject(tooLarge(url, x.maxBytes));
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > x.maxBytes) {
              response.destroy();
              reject(tooLarge(url, x.maxBytes));
            } else chunks.push(chunk);
          });
          response.on("error", fail);
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
              url: url.href,
            }),
          );
        },
      );
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (request.reusedSocket && !answered && error.code === "ECONNRESET" && !x.signal.aborted) send();
        else fail(error);
      });
      request.end(x.body);
    };
    send();
  });
}

function tooLarge(url: URL, maxBytes: number): FetchError {
  return new FetchError("too_large", `The response from ${url.host} is larger than ${maxBytes} bytes`);
}

function asFetchError(error: unknown, signal: AbortSignal, url: URL): FetchError {
  if (error instanceof FetchError) return error;
  if (signal.aborted) return new FetchError("timeout", `${url.host} did not answer in time`);
  return new FetchError("network", `${url.host}: ${error instanceof Error ? error.message : String(error)}`);
}

// The fetcher of a running server: its configuration decides whether private peers are allowed, and
// its User-Agent names Rookery and this server, so that the other side knows whom to contact.
import type { Config } from "../config.ts";
import { ROOKERY_VERSION } from "../version.ts";
import { createFetcher, type Fetch } from "./fetch.ts";

const fetchers = new WeakMap<Config, Fetch>();

export function outgoing(config: Config): Fetch {
  let fetch = fetchers.get(config);
  if (!fetch) {
    fetch = createFetcher({
      allowPrivateAddresses: config.allowPrivateAddresses,
      userAgent: `Rookery/${ROOKERY_VERSION} (+${config.origin}/)`,
    });
    fetchers.set(config, fetch);
  }
  return fetch;
}

// What a reader without an account may read, by the server's configuration: the one rule the API
// and the public pages both follow.
import type { Config } from "../config.ts";

/** Whether anonymous requests to the API are refused (secure mode and limited federation mode). */
export function apiNeedsUser(config: Pick<Config, "authorizedFetch" | "limitedFederation">): boolean {
  return config.authorizedFetch || config.limitedFederation;
}

/** Whether the public and hashtag timelines are open to readers without an account (`PUBLIC_PREVIEW`). */
export function anonymousReadsTimelines(
  config: Pick<Config, "publicPreview" | "authorizedFetch" | "limitedFederation">,
): boolean {
  return config.publicPreview && !apiNeedsUser(config);
}

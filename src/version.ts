// What this server says it is. Clients parse `version` as a Mastodon version, so Rookery's own
// version rides along in the "compatible" form; `api_versions.mastodon` is the reliable signal.
import pkg from "../package.json" with { type: "json" };

export const ROOKERY_VERSION: string = pkg.version;
const MASTODON_COMPATIBLE = "4.5.0";
export const MASTODON_API_VERSION = 7;
export const VERSION_STRING = `${MASTODON_COMPATIBLE} (compatible; Rookery ${ROOKERY_VERSION})`;
export const SOURCE_URL = "https://github.com/rookery-social/rookery";

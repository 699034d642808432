// The post an oEmbed request names (GET /api/oembed?url=…), as Mastodon's StatusFinder reads the
// URL: a local post's page (`/@username/:id`) or its ActivityPub id (`/users/username/statuses/:id`),
// on this server's own origin. Only what anyone may read is embedded (public or unlisted, not a
// boost, its author not suspended); everything else is a 404, whether it exists or not.
import { notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { visibleStatus } from "../visibility/load.ts";

export interface EmbeddedStatus {
  id: string;
  username: string;
  displayName: string;
}

const PAGE = /^\/@([^/@]+)\/([^/]+)\/?$/;
const ACTIVITY = /^\/users\/([^/]+)\/statuses\/([^/]+)\/?$/;

export async function embeddedStatus(rt: Runtime, url: string): Promise<EmbeddedStatus> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw notFound();
  }
  if (parsed.origin !== rt.config.origin) throw notFound();
  const [, username, id] = PAGE.exec(parsed.pathname) ?? ACTIVITY.exec(parsed.pathname) ?? [];
  if (!username || !isId(id)) throw notFound();
  const row = await visibleStatus(rt, null, id);
  if (row.local !== true || row.reblog_of_id !== null) throw notFound();
  const author = await rt.db
    .selectFrom("accounts")
    .select(["username", "display_name"])
    .where("id", "=", row.account_id)
    .executeTakeFirst();
  if (!author || author.username.toLowerCase() !== username.toLowerCase()) throw notFound();
  return { id: row.id, username: author.username, displayName: author.display_name };
}

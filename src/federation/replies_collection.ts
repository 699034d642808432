// The replies collection of a local status (`/users/:username/statuses/:id/replies`), as Mastodon's
// ActivityPub::RepliesController serves one, so that other servers (and Rookery's own walk of
// another server's replies, replies.ts) can make a thread whole: a Collection whose first page is
// embedded, each page the ids of up to 60 public or unlisted replies, oldest first, whose authors
// are not suspended, the next page named by `?page=true&min_id=` of the last. Pages are asked for
// with `?page=true`. Mastodon lists the author's own replies before the others'; here they come in
// one list, by id.
import type { RequestContext } from "@fedify/fedify";
import { Collection, CollectionPage } from "@fedify/fedify/vocab";
import { isId } from "../domain/ids.ts";
import type { Runtime } from "../runtime.ts";
import { publicLocalStatusId } from "./local_rows.ts";

const PAGE = 60;

/** The id of a local status's replies collection. */
export const repliesUri = (statusUri: string) => `${statusUri}/replies`;

async function page(rt: Runtime, statusId: string, collection: string, minId: string | null) {
  const rows = await rt.db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["s.id", "s.uri"])
    .where("s.in_reply_to_id", "=", statusId)
    .where("s.visibility", "in", ["public", "unlisted"])
    .where("s.deleted_at", "is", null)
    .where("a.suspended_at", "is", null)
    .$if(minId !== null, (q) => q.where("s.id", ">", minId!))
    .orderBy("s.id")
    .limit(PAGE)
    .execute();
  const here = `${collection}?page=true${minId ? `&min_id=${minId}` : ""}`;
  return new CollectionPage({
    id: new URL(here),
    partOf: new URL(collection),
    items: rows.map((r) => new URL(r.uri)),
    next: rows.length === PAGE ? new URL(`${collection}?page=true&min_id=${rows[rows.length - 1].id}`) : null,
  });
}

export async function servedReplies(
  rt: Runtime,
  ctx: RequestContext<Runtime>,
  values: { username: string; id: string },
): Promise<Collection | null> {
  const statusId = await publicLocalStatusId(rt, values.username, values.id);
  if (!statusId) return null;
  const status = await rt.db.selectFrom("statuses").select("uri").where("id", "=", statusId).executeTakeFirst();
  if (!status) return null;
  const collection = repliesUri(status.uri);
  const query = ctx.url.searchParams;
  if (query.get("page") !== "true") {
    return new Collection({ id: new URL(collection), first: await page(rt, statusId, collection, null) });
  }
  const minId = query.get("min_id");
  return page(rt, statusId, collection, minId && isId(minId) ? minId : null);
}

// The job that makes an account's archive, in the layout of Mastodon's BackupService, as a zip:
// outbox.json (the Create of each public and unlisted post, as the outbox serves it), actor.json,
// likes.json and bookmarks.json (the posts' ids), the avatar and header, and the posts' media files,
// which the documents name by their paths inside the archive. Posts are read a page at a time and
// the zip is written to a temporary file as it grows; the finished file goes to media storage.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { PassThrough } from "node:stream";
import { randomToken } from "../domain/secrets.ts";
import { archiveActor, archiveCreates } from "../federation/load.ts";
import { lazy } from "../lazy.ts";
import { logger } from "../log.ts";
import { ARCHIVES_PREFIX, mediaStorage } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";
import { archivedStatuses, archiveProgress, completeArchive, failArchive } from "../services/portability/archive.ts";
import type { JobContext } from "./queue.ts";

// Only the worker that makes an archive needs the zip writer.
const yazl = lazy<typeof import("yazl")>("yazl");

const PAGE = 100;
const COLLECTION = { "@context": "https://www.w3.org/ns/activitystreams", type: "OrderedCollection" };
const MEDIA_DIR = "media_attachments/files/";

type Json = Record<string, unknown>;

/** Points the documents' attachments at the copies of their files inside the archive. */
function repoint(create: Json, byUrl: Map<string, string>): void {
  const object = create.object as Json | undefined;
  const attachments = object?.attachment;
  for (const a of Array.isArray(attachments) ? attachments : attachments ? [attachments] : []) {
    const path = byUrl.get((a as Json).url as string);
    if (path) (a as Json).url = path;
  }
}

async function statusUris(rt: Runtime, table: "favourites" | "bookmarks", accountId: string): Promise<string[]> {
  const rows = await rt.db
    .selectFrom(`${table} as x`)
    .innerJoin("statuses as s", "s.id", "x.status_id")
    .select("s.uri")
    .where("x.account_id", "=", accountId)
    .where("s.deleted_at", "is", null)
    .orderBy("x.id", "desc")
    .execute();
  return rows.map((r) => r.uri);
}

/** The job: makes the archive; when its last attempt fails too, the archive is marked failed. */
export async function buildArchive(rt: Runtime, p: { archiveId: string }, job?: JobContext): Promise<void> {
  try {
    await build(rt, p.archiveId);
  } catch (error) {
    if (job?.lastAttempt) await failArchive(rt, p.archiveId);
    throw error;
  }
}

async function build(rt: Runtime, archiveId: string): Promise<void> {
  const archive = await rt.db.selectFrom("archives").selectAll().where("id", "=", archiveId).executeTakeFirst();
  if (!archive || archive.file_key || archive.failed_at) return;
  const account = await rt.db
    .selectFrom("accounts")
    .select(["username", "avatar_file", "header_file"])
    .where("id", "=", archive.account_id)
    .executeTakeFirstOrThrow();
  const storage = mediaStorage(rt.config);
  const file = join(tmpdir(), `rookery-archive-${archiveId}-${randomToken()}.zip`);
  const zip = new (yazl().ZipFile)();
  const written = once(zip.outputStream.pipe(createWriteStream(file)), "close");
  try {
    // The outbox comes first, written as its pages are read; the files it names follow it.
    const outbox = new PassThrough();
    zip.addReadStream(outbox, "outbox.json");
    const write = async (text: string) => {
      if (!outbox.write(text)) await once(outbox, "drain");
    };
    await write(
      `${JSON.stringify({ ...COLLECTION, id: "outbox.json", totalItems: archive.statuses_total }).slice(0, -1)},"orderedItems":[`,
    );
    let after: string | null = null;
    let done = 0;
    for (;;) {
      let q = archivedStatuses(rt.db, archive.account_id).select("id");
      if (after) q = q.where("id", ">", after);
      const ids = (await q.orderBy("id").limit(PAGE).execute()).map((r) => r.id);
      if (ids.length === 0) break;
      const media = await rt.db
        .selectFrom("media_attachments")
        .select("file_key")
        .where("status_id", "in", ids)
        .where("file_key", "is not", null)
        .execute();
      const byUrl = new Map<string, string>();
      for (const m of media) {
        const path = `${MEDIA_DIR}${m.file_key}`;
        byUrl.set(storage.url(m.file_key!), path);
        zip.addBuffer(await storage.get(m.file_key!), path);
      }
      for (const create of await archiveCreates(rt, ids)) {
        repoint(create, byUrl);
        await write(`${done > 0 ? "," : ""}${JSON.stringify(create)}`);
        done++;
      }
      after = ids[ids.length - 1];
      await archiveProgress(rt, archiveId, done);
    }
    await write("]}");
    outbox.end();

    const actor = (await archiveActor(rt, account.username)) ?? {};
    for (const [name, key, field] of [
      ["avatar", account.avatar_file, "icon"],
      ["header", account.header_file, "image"],
    ] as const) {
      if (!key) continue;
      const path = `${name}${extname(key)}`;
      zip.addBuffer(await storage.get(key), path);
      if (actor[field] && typeof actor[field] === "object") (actor[field] as Json).url = path;
    }
    zip.addBuffer(Buffer.from(JSON.stringify(actor)), "actor.json");
    const likes = await statusUris(rt, "favourites", archive.account_id);
    zip.addBuffer(Buffer.from(JSON.stringify({ ...COLLECTION, id: "likes.json", orderedItems: likes })), "likes.json");
    const bookmarks = await statusUris(rt, "bookmarks", archive.account_id);
    zip.addBuffer(
      Buffer.from(JSON.stringify({ ...COLLECTION, id: "bookmarks.json", orderedItems: bookmarks })),
      "bookmarks.json",
    );
    zip.end();
    await written;
    const bytes = await readFile(file);
    const stamp = archive.created_at.toISOString().replace(/\D/g, "").slice(0, 14);
    const key = `${ARCHIVES_PREFIX}${randomToken()}/archive-${stamp}.zip`;
    await storage.put(key, bytes, "application/zip");
    if (!(await completeArchive(rt, archiveId, key, bytes.byteLength))) {
      logger("jobs").info("Archive {id} was finished by another run", { id: archiveId });
      await storage.delete(key);
    }
  } finally {
    await rm(file, { force: true });
  }
}

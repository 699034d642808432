// An account's archive, as Mastodon's "Request your archive" makes it: asked for at most once a week
// (an archive whose job gave up does not count, as Mastodon deletes those), made by a job (src/jobs/archive.ts), kept in media storage under a prefix never served publicly,
// and handed to its owner only, who gets a mail when it is ready.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { ArchivesTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    "archives.build": { archiveId: string };
  }
}

export type Archive = Selectable<ArchivesTable>;

/** Mastodon's BackupPolicy: one archive a week. */
export const ARCHIVE_INTERVAL_DAYS = 7;

/** The statuses an archive's outbox holds: the account's own public and unlisted posts. */
export function archivedStatuses(db: Db, accountId: string) {
  return db
    .selectFrom("statuses")
    .where("account_id", "=", accountId)
    .where("visibility", "in", ["public", "unlisted"])
    .where("reblog_of_id", "is", null)
    .where("deleted_at", "is", null);
}

/** Starts a new archive, unless one asked for less than a week ago is made or being made. */
export async function requestArchive(rt: Runtime, accountId: string): Promise<Archive> {
  return rt.db.transaction().execute(async (trx) => {
    const recent = await trx
      .selectFrom("archives")
      .select("id")
      .where("account_id", "=", accountId)
      .where("failed_at", "is", null)
      .where("created_at", ">", new Date(Date.now() - ARCHIVE_INTERVAL_DAYS * 86_400_000))
      .executeTakeFirst();
    if (recent) {
      throw unprocessable(`You can request an archive once every ${ARCHIVE_INTERVAL_DAYS} days`);
    }
    const count = await archivedStatuses(trx, accountId)
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    const archive: Archive = {
      id: newId(),
      account_id: accountId,
      statuses_total: Number(count.n),
      statuses_done: 0,
      file_key: null,
      file_size: null,
      created_at: new Date(),
      finished_at: null,
      failed_at: null,
    };
    await trx.insertInto("archives").values(archive).execute();
    await rt.queue.enqueue("archives.build", { archiveId: archive.id }, {}, trx);
    return archive;
  });
}

export function latestArchive(db: Db, accountId: string): Promise<Archive | undefined> {
  return db
    .selectFrom("archives")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .executeTakeFirst();
}

/** The stored file of one of the account's own archives; 404 for anyone else's or one not ready. */
export async function archiveFileKey(rt: Runtime, accountId: string, id: string): Promise<string> {
  const row = await rt.db
    .selectFrom("archives")
    .select("file_key")
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (!row?.file_key) throw notFound();
  return row.file_key;
}

/** Marks an archive whose job gave up, unless a run of it finished it meanwhile. */
export async function failArchive(rt: Runtime, id: string): Promise<void> {
  await rt.db
    .updateTable("archives")
    .set({ failed_at: new Date() })
    .where("id", "=", id)
    .where("file_key", "is", null)
    .execute();
}

export async function archiveProgress(rt: Runtime, id: string, done: number): Promise<void> {
  await rt.db.updateTable("archives").set({ statuses_done: done }).where("id", "=", id).execute();
}

/**
 * Records the stored file and queues the mail, once: a second run of the job finds the file recorded
 * and returns false (the file it stored is then left unused).
 */
export async function completeArchive(rt: Runtime, id: string, key: string, size: number): Promise<boolean> {
  return rt.db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable("archives")
      .set({ file_key: key, file_size: String(size), finished_at: new Date() })
      .where("id", "=", id)
      .where("file_key", "is", null)
      .returning("account_id")
      .executeTakeFirst();
    if (!done) return false;
    const user = await trx
      .selectFrom("users as u")
      .innerJoin("accounts as a", "a.id", "u.account_id")
      .select(["u.email", "u.locale", "a.username"])
      .where("u.account_id", "=", done.account_id)
      .executeTakeFirst();
    if (user) {
      const t = mailTexts(user.locale).archiveReady;
      const site = rt.config.site.title;
      await queueMail(rt, trx, {
        to: user.email,
        subject: t.subject(site),
        text: t.text(site, user.username, `${rt.config.origin}/settings/export`),
      });
    }
    return true;
  });
}

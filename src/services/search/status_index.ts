// The full-text index of statuses (migration 0026), kept in step with them: written in the same
// transaction as a status's post (statuses/write.ts), edit and delete (statuses/side_effects.ts).
// Boosts are not indexed (they have no text of their own), nor deleted statuses. SQLite keeps words
// in FTS5 with the status id as rowid; PostgreSQL keeps a tsvector. Both index the words
// searchWords() makes, so the two databases find the same statuses.
import { type RawBuilder, sql } from "kysely";
import type { Db, Dialect } from "../../db/index.ts";
import { prepared } from "../../db/prepared.ts";
import { searchWords } from "../../domain/search_query.ts";
import { htmlToPlainText } from "../../domain/text/index.ts";

/** What statuses are found by: content warning, text and poll options; live originals only. */
async function documents(db: Db, ids: string[]): Promise<{ id: string; document: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("statuses as s")
    .leftJoin("polls as p", "p.id", "s.poll_id")
    .select(["s.id", "s.content", "s.spoiler_text", "p.options"])
    .where("s.id", "in", ids)
    .where("s.reblog_of_id", "is", null)
    .where("s.deleted_at", "is", null)
    .execute();
  return rows.map((r) => ({ id: r.id, document: documentOf(r.spoiler_text, r.content, r.options ?? []) }));
}

/** What a status is found by, from its parts (a status being posted: from what is being written). */
export function documentOf(spoilerText: string, content: string, pollOptions: string[]): string {
  return searchWords([spoilerText, htmlToPlainText(content), ...pollOptions].join("\n")).join(" ");
}

/** A status's words as each database keeps them: FTS5 text, or a tsvector. */
function kept(dialect: Dialect, document: unknown) {
  return dialect === "sqlite" ? sql`${document}` : sql`to_tsvector('simple', ${document})`;
}

/** A status's entry as each database keeps it: its id, and its words. */
function entry(dialect: Dialect, id: unknown, document: unknown) {
  return sql`(${id}, ${kept(dialect, document)})`;
}

/** The insert of `entries` (made by `entry`). */
function insertEntries(dialect: Dialect, entries: RawBuilder<unknown>) {
  return dialect === "sqlite"
    ? sql`insert into status_search (rowid, document) values ${entries}`
    : sql`insert into status_search (status_id, document) values ${entries}`;
}

async function write(db: Db, dialect: Dialect, docs: { id: string; document: string }[]): Promise<void> {
  if (docs.length === 0) return;
  await insertEntries(dialect, sql.join(docs.map((d) => entry(dialect, d.id, d.document)))).execute(db);
}

export async function unindexStatus(db: Db, dialect: Dialect, id: string): Promise<void> {
  if (dialect === "sqlite") await sql`delete from status_search where rowid = ${id}`.execute(db);
  else await sql`delete from status_search where status_id = ${id}`.execute(db);
}

/** Rewrites the index entry of status `id` from its row; call inside the writing transaction. */
export async function indexStatus(db: Db, dialect: Dialect, id: string): Promise<void> {
  await unindexStatus(db, dialect, id);
  await write(db, dialect, await documents(db, [id]));
}

/**
 * PostgreSQL: the entry of each status a data-modifying CTE named `cte` returns (its `id`), as the
 * body of another CTE of its statement (statuses/write.ts: in the round trip of the insert).
 */
export function indexInserted(cte: string, document: unknown): RawBuilder<Record<string, never>> {
  const words = kept("postgres", document);
  return sql`(insert into status_search (status_id, document) select id, ${words} from ${sql.table(cte)})`;
}

/**
 * The index entry of a status being posted, on SQLite (PostgreSQL's goes with its row:
 * indexInserted). Written for every status stored, so compiled once.
 */
export const indexNewStatus = prepared((_db, dialect: Dialect, v: { id: string; document: string }) =>
  insertEntries(dialect, entry(dialect, v.id, v.document)),
);

/** Rebuilds the whole index from the statuses, a batch at a time; returns how many were indexed. */
export async function reindexStatuses(
  db: Db,
  dialect: Dialect,
  progress: (done: number) => void = () => {},
): Promise<number> {
  await sql`delete from status_search`.execute(db);
  let after = "0";
  let done = 0;
  for (;;) {
    const rows = await db
      .selectFrom("statuses")
      .select("id")
      .where("id", ">", after)
      .orderBy("id")
      .limit(500)
      .execute();
    if (rows.length === 0) {
      // FTS5 merges its index segments as it grows; a rebuilt index is merged into one at once.
      if (dialect === "sqlite") await sql`insert into status_search (status_search) values ('optimize')`.execute(db);
      return done;
    }
    const docs = await documents(
      db,
      rows.map((r) => r.id),
    );
    await write(db, dialect, docs);
    done += docs.length;
    after = rows[rows.length - 1].id;
    progress(done);
  }
}

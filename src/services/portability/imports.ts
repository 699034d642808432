// Imports of the CSV files Mastodon exports: the upload is read and its rows stored at once; jobs
// then work through them a chunk at a time (each chunk its own job, so a 20,000-row file never
// holds a worker, a transaction or a request for long), and an overwrite ends with jobs that take
// away what the file did not name. Every row keeps its outcome for the settings page.

import { setTimeout as sleep } from "node:timers/promises";
import type { Selectable } from "kysely";
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import type { ImportsTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { paceChunk } from "../../jobs/pace.ts";
import type { JobContext } from "../../jobs/queue.ts";
import type { Runtime } from "../../runtime.ts";
import type { ExportKind } from "./exports.ts";
import { readImportFile } from "./import_file.ts";
import { applyRows, knownAddresses, prunePage } from "./import_rows.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Rows `from` to `from + IMPORT_CHUNK - 1` of an import. */
    "imports.rows": { importId: string; from: number };
    /** One page of an overwrite, after the relation `after` (null: from the start). */
    "imports.prune": { importId: string; after: string | null };
  }
}

export type Import = Selectable<ImportsTable>;

/** Rows per job: a chunk takes a fraction of a second (its follows go in one batch, other kinds row by row). */
export const IMPORT_CHUNK = 100;
const INSERT_BATCH = 500;

export interface NewImport {
  kind: ExportKind;
  overwrite: boolean;
  fileName: string;
  bytes: Uint8Array;
}

/** Reads the file, stores its rows and starts the jobs. One import runs at a time per account. */
export async function createImport(rt: Runtime, accountId: string, input: NewImport): Promise<Import> {
  const rows = await readImportFile(input.kind, input.bytes);
  const row: Import = {
    id: newId(),
    account_id: accountId,
    type: input.kind,
    overwrite: input.overwrite,
    file_name: input.fileName.slice(0, 200),
    state: "running",
    total_rows: rows.length,
    processed_rows: 0,
    failed_rows: 0,
    created_at: new Date(),
    finished_at: null,
  };
  await rt.db.transaction().execute(async (trx) => {
    const running = await trx
      .selectFrom("imports")
      .select("id")
      .where("account_id", "=", accountId)
      .where("state", "!=", "finished")
      .executeTakeFirst();
    if (running) throw unprocessable("An import is already running: wait until it has finished");
    await trx.insertInto("imports").values(row).execute();
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      await trx
        .insertInto("import_rows")
        .values(
          rows.slice(i, i + INSERT_BATCH).map((data, j) => ({
            import_id: row.id,
            row_number: i + j + 1,
            data: JSON.stringify(data),
            done: false,
            target: null,
            error: null,
          })),
        )
        .execute();
    }
    await startNext(rt, trx, row, 1);
  });
  return row;
}

/** The next step of an import after its rows before `from`: a chunk, the overwrite, or the end. */
async function startNext(rt: Runtime, db: Db, imp: Import, from: number) {
  if (from <= imp.total_rows) {
    await rt.queue.enqueue("imports.rows", { importId: imp.id, from }, { unique: true }, db);
  } else if (imp.overwrite) {
    await db.updateTable("imports").set({ state: "pruning" }).where("id", "=", imp.id).execute();
    await rt.queue.enqueue("imports.prune", { importId: imp.id, after: null }, { unique: true }, db);
  } else {
    await finish(db, imp.id);
  }
}

async function finish(db: Db, id: string) {
  await db
    .updateTable("imports")
    .set({ state: "finished", finished_at: new Date() })
    .where("id", "=", id)
    .where("state", "!=", "finished")
    .execute();
}

/** The job of one chunk: applies the rows not done yet, records each outcome, starts what comes next. */
export async function runImportChunk(rt: Runtime, p: { importId: string; from: number }, _job?: JobContext) {
  const imp = await rt.db.selectFrom("imports").selectAll().where("id", "=", p.importId).executeTakeFirst();
  if (!imp) return;
  const rows = await rt.db
    .selectFrom("import_rows")
    .select(["row_number", "data"])
    .where("import_id", "=", imp.id)
    .where("row_number", ">=", p.from)
    .where("row_number", "<", p.from + IMPORT_CHUNK)
    .where("done", "=", false)
    .orderBy("row_number")
    .execute();
  if (rows.length === 0) return;
  const pause = paceChunk();
  const known = await knownAddresses(
    rt,
    rows.map((r) => r.data),
  );
  const applied = await applyRows(
    rt,
    imp.account_id,
    imp.type as ExportKind,
    rows.map((r) => r.data),
    known,
  );
  const outcomes = rows.map((row, i) => {
    const a = applied[i];
    return typeof a === "string"
      ? { row: row.row_number, target: a, error: null }
      : { row: row.row_number, target: null, error: a.message.slice(0, 300) };
  });
  await sleep(pause());
  // Each row's outcome in one statement; only rows not done yet count (see below).
  const caseOf = (value: (o: (typeof outcomes)[number]) => string | null) =>
    sql<string | null>`case row_number ${sql.join(
      outcomes.map((o) => sql`when ${o.row} then ${value(o)}`),
      sql` `,
    )} end`;
  await rt.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable("import_rows")
      .set({ done: true, target: caseOf((o) => o.target), error: caseOf((o) => o.error) })
      .where("import_id", "=", imp.id)
      .where(
        "row_number",
        "in",
        outcomes.map((o) => o.row),
      )
      .where("done", "=", false)
      .returning("error")
      .execute();
    // Another run of this job got there first: it counted these rows and started what follows.
    if (updated.length === 0) return;
    await trx
      .updateTable("imports")
      .set({
        processed_rows: sql`processed_rows + ${updated.length}`,
        failed_rows: sql`failed_rows + ${updated.filter((u) => u.error !== null).length}`,
      })
      .where("id", "=", imp.id)
      .execute();
    await startNext(rt, trx, imp, p.from + IMPORT_CHUNK);
  });
}

/** What an overwrite keeps: every target the import's rows named. */
async function keptTargets(db: Db, importId: string): Promise<Set<string>> {
  const kept = await db
    .selectFrom("import_rows")
    .select("target")
    .where("import_id", "=", importId)
    .where("target", "is not", null)
    .execute();
  return new Set(kept.map((r) => r.target!));
}

/** The job of an overwrite: one page of what the account has of this kind, undoing what the file did not name. */
export async function pruneImport(rt: Runtime, p: { importId: string; after: string | null }, _job?: JobContext) {
  const imp = await rt.db.selectFrom("imports").selectAll().where("id", "=", p.importId).executeTakeFirst();
  if (imp?.state !== "pruning") return;
  const keep = await keptTargets(rt.db, imp.id);
  const last = await prunePage(rt, imp.account_id, imp.type as ExportKind, keep, p.after);
  await rt.db.transaction().execute(async (trx) => {
    if (last) await rt.queue.enqueue("imports.prune", { importId: imp.id, after: last }, { unique: true }, trx);
    else await finish(trx, imp.id);
  });
}

/**
 * Works through an import here and now, with the functions its jobs call (for the command line,
 * which may run without a worker). The jobs it started find the work done when a worker runs them.
 */
export async function runImportNow(rt: Runtime, importId: string, progress: (done: number, total: number) => void) {
  for (;;) {
    const imp = await rt.db.selectFrom("imports").selectAll().where("id", "=", importId).executeTakeFirstOrThrow();
    progress(imp.processed_rows, imp.total_rows);
    if (imp.state === "finished") return imp;
    if (imp.state === "pruning") {
      const keep = await keptTargets(rt.db, imp.id);
      let after: string | null = null;
      do after = await prunePage(rt, imp.account_id, imp.type as ExportKind, keep, after);
      while (after);
      await finish(rt.db, imp.id);
      continue;
    }
    const next = await rt.db
      .selectFrom("import_rows")
      .select("row_number")
      .where("import_id", "=", imp.id)
      .where("done", "=", false)
      .orderBy("row_number")
      .executeTakeFirst();
    if (!next) continue;
    const from = Math.floor((next.row_number - 1) / IMPORT_CHUNK) * IMPORT_CHUNK + 1;
    await runImportChunk(rt, { importId: imp.id, from });
  }
}

/** The account's imports, newest first. */
export function listImports(rt: Runtime, accountId: string, limit = 20): Promise<Import[]> {
  return rt.db
    .selectFrom("imports")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

export interface FailedRow {
  row_number: number;
  /** What the row named (the address, domain, URL or list and address). */
  value: string;
  error: string;
}

/** The rows of one of the account's imports that failed, with why. */
export async function failedRows(rt: Runtime, accountId: string, importId: string, limit = 500): Promise<FailedRow[]> {
  const imp = await rt.db
    .selectFrom("imports")
    .select("id")
    .where("id", "=", importId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (!imp) throw notFound();
  const rows = await rt.db
    .selectFrom("import_rows")
    .select(["row_number", "data", "error"])
    .where("import_id", "=", importId)
    .where("error", "is not", null)
    .orderBy("row_number")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    row_number: r.row_number,
    value: [r.data.list_name, r.data.acct, r.data.domain, r.data.uri].filter((v) => typeof v === "string").join(" "),
    error: r.error!,
  }));
}

// `rookery accounts export|import`: a local account's follows, lists, blocks, mutes, blocked domains
// and bookmarks as Mastodon's CSV files, through the services the settings pages use.
import { readFile } from "node:fs/promises";
import type { Runtime } from "../runtime.ts";
import { EXPORT_KINDS, type ExportKind, exportLines, isExportKind } from "../services/portability/exports.ts";
import { createImport, failedRows, runImportNow } from "../services/portability/imports.ts";
import { UsageError } from "./command.ts";
import { progressBar } from "./progress.ts";

export function exportKindOf(type: string | undefined): ExportKind {
  if (!isExportKind(type)) throw new UsageError(`--type is one of: ${EXPORT_KINDS.join(", ")}.`);
  return type;
}

async function localAccountId(rt: Runtime, name: string): Promise<string> {
  const row = await rt.db
    .selectFrom("accounts")
    .select("id")
    .where("acct_key", "=", `${name.replace(/^@/, "").toLowerCase()}@`)
    .executeTakeFirst();
  if (!row) throw new Error("No such local account.");
  return row.id;
}

/** Writes the file to standard output, as it is read. */
export async function exportAccount(rt: Runtime, name: string, kind: ExportKind): Promise<void> {
  const accountId = await localAccountId(rt, name);
  for await (const line of exportLines(rt, accountId, kind)) {
    if (!process.stdout.write(line)) await new Promise((resolve) => process.stdout.once("drain", resolve));
  }
}

/** Imports the file and works through it here, printing the rows that failed. */
export async function importAccount(
  rt: Runtime,
  name: string,
  kind: ExportKind,
  file: string,
  overwrite: boolean,
): Promise<void> {
  const accountId = await localAccountId(rt, name);
  const imp = await createImport(rt, accountId, { kind, overwrite, fileName: file, bytes: await readFile(file) });
  const done = await runImportNow(rt, imp.id, progressBar(`Importing ${kind}`));
  for (const f of await failedRows(rt, accountId, imp.id, Number.MAX_SAFE_INTEGER)) {
    console.error(`row ${f.row_number}\t${f.value}\t${f.error}`);
  }
  console.log(
    `Imported ${done.processed_rows - done.failed_rows} of ${done.total_rows} rows; ${done.failed_rows} failed.`,
  );
}

// Reading an uploaded CSV file as Mastodon's importer reads it (Form::Import): a header row is
// recognised by its first cell, a file without one gets the type's default columns, and each field
// is cleaned as Mastodon cleans it. Every byte comes from outside: the file's size, its row count
// and the size of a record are bounded, and anything that is not UTF-8 CSV is refused with a
// message that says why.
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { unprocessable } from "../../domain/errors.ts";
import type { ExportKind } from "./exports.ts";

/** Mastodon takes 20 MB; a file of 20,000 rows of the longest kind (bookmarks' URLs) fits in 4 MB. */
export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
/** Mastodon's ROWS_PROCESSING_LIMIT. */
export const MAX_IMPORT_ROWS = 20_000;
const MAX_RECORD_BYTES = 16 * 1024;

export type ImportRowData = Record<string, string | boolean | string[] | null>;

/** The columns each kind needs, with Mastodon's header names. */
const EXPECTED: Record<ExportKind, string[]> = {
  following: ["Account address", "Show boosts", "Notify on new posts", "Languages"],
  blocks: ["Account address"],
  mutes: ["Account address", "Hide notifications"],
  domain_blocks: ["#domain"],
  bookmarks: ["#uri"],
  lists: ["List name", "Account address"],
};

/** What a file without a header row holds. */
const DEFAULT_HEADERS: Record<ExportKind, string[]> = {
  following: ["Account address"],
  blocks: ["Account address"],
  mutes: ["Account address"],
  domain_blocks: ["#domain"],
  bookmarks: ["#uri"],
  lists: ["List name", "Account address"],
};

const KNOWN_FIRST_HEADERS = new Set(Object.values(EXPECTED).map((h) => h[0]));

const ATTRIBUTES: Record<string, string> = {
  "Account address": "acct",
  "Show boosts": "show_reblogs",
  "Notify on new posts": "notify",
  Languages: "languages",
  "Hide notifications": "hide_notifications",
  "#domain": "domain",
  "#uri": "uri",
  "List name": "list_name",
};

// What Rails casts to false; any other non-blank value is true, blank is nil.
const FALSE_VALUES = new Set(["0", "f", "false", "off"]);

function clean(header: string, field: string | undefined): string | boolean | string[] | null {
  if (field === undefined) return null;
  switch (header) {
    case "Show boosts":
    case "Notify on new posts":
    case "Hide notifications":
      return field === "" ? null : !FALSE_VALUES.has(field.toLowerCase());
    case "Languages": {
      const codes = field
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      return codes.length > 0 ? codes : null;
    }
    case "Account address":
      return field.trim().replace(/^@/, "");
    case "#domain":
      return field.trim().toLowerCase();
    default:
      return field.trim();
  }
}

const invalid = (why: string) => unprocessable(`Validation failed: Invalid CSV file. Error: ${why}`);

/** The rows of an uploaded file of `kind`, each as Mastodon's importer keeps it. */
export async function readImportFile(kind: ExportKind, bytes: Uint8Array): Promise<ImportRowData[]> {
  if (bytes.byteLength > MAX_IMPORT_BYTES) {
    throw unprocessable(`Validation failed: File is too large (at most ${MAX_IMPORT_BYTES / 1024 / 1024} MB)`);
  }
  if (bytes.includes(0)) throw invalid("the file holds NUL bytes, so it is not a text file");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("the file is not UTF-8 text");
  }
  const records: string[][] = [];
  try {
    const parser = Readable.from([text]).pipe(
      parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES }),
    );
    for await (const record of parser as AsyncIterable<string[]>) {
      records.push(record);
      // One more than the limit, with a header row: enough to tell that the file is too long.
      if (records.length > MAX_IMPORT_ROWS + 1) break;
    }
  } catch (error) {
    throw invalid((error as Error).message);
  }
  if (records.length === 0) throw unprocessable("Validation failed: Empty CSV file");
  const hasHeader = KNOWN_FIRST_HEADERS.has(records[0][0]);
  const headers = hasHeader ? records[0].map((h) => h.trim()) : DEFAULT_HEADERS[kind];
  if (!DEFAULT_HEADERS[kind].every((h) => headers.includes(h))) {
    throw unprocessable("Validation failed: Incompatible with the selected import type");
  }
  const rows = hasHeader ? records.slice(1) : records;
  if (rows.length > MAX_IMPORT_ROWS) {
    throw unprocessable(`Validation failed: The file contains more than ${MAX_IMPORT_ROWS} rows`);
  }
  const wanted = EXPECTED[kind];
  return rows.map((fields) => {
    const data: ImportRowData = {};
    headers.forEach((header, i) => {
      if (wanted.includes(header)) data[ATTRIBUTES[header]] = clean(header, fields[i]);
    });
    return data;
  });
}

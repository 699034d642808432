// The CSV files Mastodon's "Export" page offers (its Export model), byte for byte as Mastodon writes
// them, so that any server that imports Mastodon's files imports ours: follows, lists, blocks,
// mutes, domain blocks and bookmarks. Rows are read a page at a time, newest first where Mastodon
// orders them, so that an account with a hundred thousand follows never sits in memory at once.
import { stringify } from "csv-stringify/sync";
import type { Db } from "../../db/index.ts";
import type { Runtime } from "../../runtime.ts";

export const EXPORT_KINDS = ["following", "lists", "blocks", "mutes", "domain_blocks", "bookmarks"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export const isExportKind = (value: unknown): value is ExportKind =>
  typeof value === "string" && (EXPORT_KINDS as readonly string[]).includes(value);

/** The file names Mastodon gives its exports. */
export const EXPORT_FILE_NAMES: Record<ExportKind, string> = {
  following: "following_accounts.csv",
  lists: "lists.csv",
  blocks: "blocked_accounts.csv",
  mutes: "muted_accounts.csv",
  domain_blocks: "blocked_domains.csv",
  bookmarks: "bookmarks.csv",
};

const PAGE = 1000;

/** One CSV line as Ruby's CSV writes it: quoted only when needed, `true`/`false`, nil as nothing, "\n" at the end. */
export const csvLine = (fields: (string | boolean | null)[]): string =>
  stringify([fields], { cast: { boolean: (v) => (v ? "true" : "false") }, record_delimiter: "unix" });

/** How many rows each file has. */
export async function exportCounts(rt: Runtime, accountId: string): Promise<Record<ExportKind, number>> {
  const count = async (table: "follows" | "blocks" | "mutes" | "account_domain_blocks" | "bookmarks") => {
    const row = await rt.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as("n"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const members = await rt.db
    .selectFrom("list_accounts as la")
    .innerJoin("lists as l", "l.id", "la.list_id")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("l.account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  return {
    following: await count("follows"),
    lists: Number(members.n),
    blocks: await count("blocks"),
    mutes: await count("mutes"),
    domain_blocks: await count("account_domain_blocks"),
    bookmarks: await count("bookmarks"),
  };
}

/** `user@domain` for everyone, our own accounts with our domain, as Mastodon writes addresses in files. */
function addressOf(rt: Runtime, row: { username: string; domain: string | null }): string {
  return `${row.username}@${row.domain ?? rt.config.localDomain}`;
}

type Pager<R> = (db: Db, before: string | null) => Promise<R[]>;

/** Rows page by page, by `id` descending, until a page comes back short. */
async function* pages<R extends { id: string }>(rt: Runtime, read: Pager<R>): AsyncGenerator<R> {
  let before: string | null = null;
  for (;;) {
    const rows = await read(rt.db, before);
    yield* rows;
    if (rows.length < PAGE) return;
    before = rows[rows.length - 1].id;
  }
}

/** The lines of one export file, header first where Mastodon writes one. */
export async function* exportLines(rt: Runtime, accountId: string, kind: ExportKind): AsyncGenerator<string> {
  switch (kind) {
    case "following": {
      yield csvLine(["Account address", "Show boosts", "Notify on new posts", "Languages"]);
      const read = (db: Db, before: string | null) => {
        let q = db
          .selectFrom("follows as r")
          .innerJoin("accounts as a", "a.id", "r.target_account_id")
          .select(["r.id", "a.username", "a.domain", "r.show_reblogs", "r.notify", "r.languages"])
          .where("r.account_id", "=", accountId);
        if (before) q = q.where("r.id", "<", before);
        return q.orderBy("r.id", "desc").limit(PAGE).execute();
      };
      for await (const f of pages(rt, read)) {
        yield csvLine([addressOf(rt, f), f.show_reblogs, f.notify, f.languages?.join(", ") ?? null]);
      }
      return;
    }
    case "blocks": {
      const read = (db: Db, before: string | null) => {
        let q = db
          .selectFrom("blocks as r")
          .innerJoin("accounts as a", "a.id", "r.target_account_id")
          .select(["r.id", "a.username", "a.domain"])
          .where("r.account_id", "=", accountId);
        if (before) q = q.where("r.id", "<", before);
        return q.orderBy("r.id", "desc").limit(PAGE).execute();
      };
      for await (const b of pages(rt, read)) yield csvLine([addressOf(rt, b)]);
      return;
    }
    case "mutes": {
      yield csvLine(["Account address", "Hide notifications"]);
      const read = (db: Db, before: string | null) => {
        let q = db
          .selectFrom("mutes as r")
          .innerJoin("accounts as a", "a.id", "r.target_account_id")
          .select(["r.id", "a.username", "a.domain", "r.hide_notifications"])
          .where("r.account_id", "=", accountId);
        if (before) q = q.where("r.id", "<", before);
        return q.orderBy("r.id", "desc").limit(PAGE).execute();
      };
      for await (const m of pages(rt, read)) yield csvLine([addressOf(rt, m), m.hide_notifications]);
      return;
    }
    case "lists": {
      const lists = await rt.db
        .selectFrom("lists")
        .select(["id", "title"])
        .where("account_id", "=", accountId)
        .orderBy("id")
        .execute();
      for (const list of lists) {
        const read = (db: Db, before: string | null) => {
          let q = db
            .selectFrom("list_accounts as r")
            .innerJoin("accounts as a", "a.id", "r.account_id")
            .select(["r.id", "a.username", "a.domain"])
            .where("r.list_id", "=", list.id);
          if (before) q = q.where("r.id", "<", before);
          return q.orderBy("r.id", "desc").limit(PAGE).execute();
        };
        for await (const m of pages(rt, read)) yield csvLine([list.title, addressOf(rt, m)]);
      }
      return;
    }
    case "domain_blocks": {
      const read = (db: Db, before: string | null) => {
        let q = db.selectFrom("account_domain_blocks").select(["id", "domain"]).where("account_id", "=", accountId);
        if (before) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(PAGE).execute();
      };
      for await (const d of pages(rt, read)) yield csvLine([d.domain]);
      return;
    }
    case "bookmarks": {
      const read = (db: Db, before: string | null) => {
        let q = db
          .selectFrom("bookmarks as r")
          .innerJoin("statuses as s", "s.id", "r.status_id")
          .select(["r.id", "s.uri"])
          .where("r.account_id", "=", accountId)
          .where("s.deleted_at", "is", null);
        if (before) q = q.where("r.id", "<", before);
        return q.orderBy("r.id", "desc").limit(PAGE).execute();
      };
      for await (const b of pages(rt, read)) yield csvLine([b.uri]);
      return;
    }
  }
}

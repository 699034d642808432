// Each process's block of id tags (src/domain/ids.ts), claimed from the database as it starts: one
// row holds where the next block starts, and one update moves it on by the block's size and
// returns the block (the row's lock orders processes starting at once). A sequence would hand out
// blocks of one size only, and workers and commands need one tag where a server needs one per thread.
import { sql } from "kysely";
import { ID_TAGS, useIdTagBase } from "../domain/ids.ts";
import type { Db } from "./index.ts";

let claimed = false;

/** Claims `count` consecutive tags for this process's threads, once; this thread takes the first. */
export async function claimIdTags(db: Db, count: number): Promise<void> {
  if (claimed) return;
  const size = Math.min(Math.max(count, 1), ID_TAGS);
  const row = await db
    .updateTable("id_tags")
    .set({ next: sql<number>`(next + ${size}) % ${sql.lit(ID_TAGS)}` })
    .returning(sql<number>`(next + ${sql.lit(ID_TAGS - size)}) % ${sql.lit(ID_TAGS)}`.as("base"))
    .executeTakeFirstOrThrow();
  useIdTagBase(Number(row.base));
  claimed = true;
}

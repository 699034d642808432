// Seeds a database for the timeline benchmark: 2,000 authors with 100 statuses each (200,000), a
// tenth of them boosts of an earlier status by an author the reader does not follow
// (BENCH_BOOSTS, a percentage), a reader following 500 of the authors (its home feed built as
// `rookery feeds rebuild` builds it), and a poster followed by 10,000 local accounts. Rows go in
// directly, in large batches.
import { sql } from "kysely";
import { idAt, newId } from "../src/domain/ids.ts";
import { hashPassword } from "../src/domain/secrets.ts";
import type { Runtime } from "../src/runtime.ts";
import { localAccountRow, userRow } from "../src/services/accounts/account_row.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { rebuildHomeFeed } from "../src/services/feeds/maintenance.ts";

export const SEED = {
  authors: 2000,
  statusesPerAuthor: 100,
  readerFollows: 500,
  posterFollowers: 10_000,
  boostPercent: Number(process.env.BENCH_BOOSTS ?? 10),
};

export interface Seeded {
  readerToken: string;
  posterToken: string;
  posterId: string;
}

const BATCH = 500;

async function insertAll<T>(rt: Runtime, table: string, rows: T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await rt.db
      .insertInto(table as any)
      .values(rows.slice(i, i + BATCH) as any)
      .execute();
  }
}

/** Seeds `rt`'s (migrated, empty) database. */
export async function seed(rt: Runtime, log: (line: string) => void = () => {}): Promise<Seeded> {
  const origin = rt.config.origin;
  const now = Date.now();
  const passwordHash = await hashPassword("benchmark password");
  const names = [
    ...Array.from({ length: SEED.authors }, (_, i) => `author${i}`),
    ...Array.from({ length: SEED.posterFollowers - SEED.authors }, (_, i) => `fan${i}`),
    "reader",
    "poster",
  ];
  const ids = new Map(names.map((n) => [n, newId()]));
  const created = new Date(now - 90 * 86_400_000);
  log(`accounts: ${names.length}`);
  await insertAll(
    rt,
    "accounts",
    names.map((n) =>
      localAccountRow(rt.config, n, { id: ids.get(n)!, display_name: n, discoverable: true, created_at: created }),
    ),
  );
  await insertAll(
    rt,
    "users",
    names.map((n) =>
      userRow(
        { id: newId(), account_id: ids.get(n)!, email: `${n}@bench.test`, password_hash: passwordHash },
        { created_at: created },
      ),
    ),
  );

  // Statuses over the last 30 days, oldest first, ids taken from their times.
  const total = SEED.authors * SEED.statusesPerAuthor;
  log(`statuses: ${total}`);
  const span = 30 * 86_400_000;
  const statuses: Record<string, unknown>[] = [];
  const statusIds: string[] = [];
  const perAuthor = new Map<string, number>();
  for (let i = 0; i < total; i++) {
    const author = `author${i % SEED.authors}`;
    const at = new Date(now - span + Math.floor((i * span) / total));
    const id = idAt(at);
    statusIds.push(id);
    perAuthor.set(author, (perAuthor.get(author) ?? 0) + 1);
    // A boost of the status half a round of authors earlier: a followed author's boosts are of
    // authors the reader does not follow. Spread over authors and rounds (by 37, prime to 100) so
    // that every author boosts now and then and every page holds some.
    const round = Math.floor(i / SEED.authors);
    const boosts = ((i + round) * 37) % 100 < SEED.boostPercent;
    const boosted = i >= SEED.authors / 2 && boosts ? statusIds[i - SEED.authors / 2] : null;
    const text = `Status ${i} by ${author}`;
    statuses.push({
      id,
      uri: `${origin}/users/${author}/statuses/${id}${boosted ? "/activity" : ""}`,
      url: boosted ? null : `${origin}/@${author}/${id}`,
      account_id: ids.get(author),
      local: true,
      visibility: i % 10 === 0 ? "unlisted" : "public",
      text: boosted ? "" : text,
      content: boosted
        ? ""
        : `<p>${text}, about <a href="${origin}/tags/birds" class="mention hashtag" rel="tag">#<span>birds</span></a></p>`,
      spoiler_text: "",
      sensitive: false,
      language: boosted ? null : "en",
      in_reply_to_id: null,
      in_reply_to_account_id: null,
      reblog_of_id: boosted,
      conversation_id: boosted ? null : id,
      application_id: null,
      created_at: at,
      updated_at: at,
      edited_at: null,
      deleted_at: null,
    });
    if (statuses.length === BATCH * 4 || i === total - 1) {
      await rt.db.transaction().execute(async (trx) => {
        for (let j = 0; j < statuses.length; j += BATCH) {
          await trx
            .insertInto("statuses")
            .values(statuses.slice(j, j + BATCH) as any)
            .execute();
          await trx
            .insertInto("status_stats")
            .values(statuses.slice(j, j + BATCH).map((s) => ({ status_id: s.id as string })))
            .execute();
        }
      });
      statuses.length = 0;
    }
  }
  await sql`update status_stats set reblogs_count = (select count(*) from statuses b where b.reblog_of_id = status_stats.status_id)
    where status_id in (select reblog_of_id from statuses where reblog_of_id is not null)`.execute(rt.db);
  await insertAll(
    rt,
    "account_stats",
    names.map((n) => ({
      account_id: ids.get(n),
      followers_count: n === "poster" ? SEED.posterFollowers : 0,
      following_count: n === "reader" ? SEED.readerFollows : 0,
      statuses_count: perAuthor.get(n) ?? 0,
      last_status_at: perAuthor.has(n) ? new Date(now) : null,
    })),
  );

  log(`follows: reader → ${SEED.readerFollows}, ${SEED.posterFollowers} → poster`);
  const follow = (from: string, to: string) => ({
    id: newId(),
    account_id: ids.get(from),
    target_account_id: ids.get(to),
    show_reblogs: true,
    notify: false,
    languages: null,
    uri: null,
    created_at: new Date(),
  });
  await insertAll(
    rt,
    "follows",
    Array.from({ length: SEED.readerFollows }, (_, i) => follow("reader", `author${i}`)),
  );
  await insertAll(
    rt,
    "follows",
    names.filter((n) => n !== "reader" && n !== "poster").map((n) => follow(n, "poster")),
  );

  log("reader's home feed");
  await rebuildHomeFeed(rt, ids.get("reader")!);

  // A server that has been running has had its tables vacuumed and analysed (PostgreSQL's autovacuum
  // does both a while after tables fill up: until then, plans lack statistics, and reads check every
  // fresh row's visibility and write hint bits) and has written its SQLite log back into the
  // database (every read searches the log first); the benchmark starts seconds after this, and
  // autovacuum would otherwise do that work while it measures.
  if (rt.dialect === "postgres") await sql`vacuum analyze`.execute(rt.db);
  else await sql`pragma wal_checkpoint(truncate)`.execute(rt.db);

  const app = await createApplication(rt, {
    name: "Benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const token = async (name: string) => {
    const user = await rt.db
      .selectFrom("users")
      .select("id")
      .where("account_id", "=", ids.get(name)!)
      .executeTakeFirstOrThrow();
    return (await issueToken(rt, { applicationId: app.id, userId: user.id, scopes: ["read", "write"] })).token;
  };
  return { readerToken: await token("reader"), posterToken: await token("poster"), posterId: ids.get("poster")! };
}

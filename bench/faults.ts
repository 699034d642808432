// The fault benchmark (`npm run bench:faults`): a real server process is killed with SIGKILL again
// and again, each time right after a post is acknowledged, while four clients write (one posts a
// status a second to 1,000 followers, ten of whom are notified of each; the others post, favourite
// and bookmark ten times a second each, a load the worker keeps up with, so that what is measured
// after a restart is the crash's delay and not a backlog), and started again each time. It reports
// the writes the server acknowledged, those of them lost (there must be none), the posts whose
// fan-out a kill interrupted, how long a restart takes until the server answers, and how long after
// it every acknowledged post is in every follower's feed.
// On SQLite, and on PostgreSQL (a schema in BENCH_PG_URL's database, by default the local `test`)
// when it is reachable. BENCH_KILLS sets the kills per database (20); BENCH_ONLY=sqlite|postgres.
import { processServer, seedFollowers } from "../test/server_process.ts";
import { log, percentile } from "./lib.ts";

const KILLS = Number(process.env.BENCH_KILLS ?? 20);
const FOLLOWERS = 1000;
const POSTS_PER_SECOND = 1;
const WRITES_PER_SECOND = 10;
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/test";
const ONLY = process.env.BENCH_ONLY;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Write = { kind: "status" | "favourite" | "bookmark"; accountId: string; statusId: string };

interface Result {
  database: string;
  kills: number;
  acknowledged: number;
  lost: number;
  /** Posts whose fan-out the kills interrupted, in all. */
  interrupted: number;
  restartMs: { p50: number; max: number };
  effectsMs: { p50: number; max: number };
}

async function benchDatabase(database: string, postgresUrl: string | null): Promise<Result> {
  const server = await processServer(postgresUrl);
  try {
    const seeded = await seedFollowers(server.rt, FOLLOWERS, { subscriberEvery: 100 });
    const writerIds = seeded.followerIds.slice(0, seeded.writerTokens.length);
    await server.start();
    const acknowledged: Write[] = [];
    const posts: string[] = [];
    let running = true;

    const request = async (token: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    // A refused connection (the server is down) is retried.
    const client = async (n: number) => {
      const token = seeded.writerTokens[n];
      const accountId = writerIds[n];
      for (let i = 0; running; i++) {
        try {
          const target = posts[Math.floor(Math.random() * posts.length)];
          if (n === 0 || !target || i % 3 === 0) {
            const poster = n === 0;
            const res = await request(poster ? seeded.posterToken : token, "/api/v1/statuses", {
              status: `Write ${n}.${i}`,
            });
            if (res.status === 200) {
              acknowledged.push({
                kind: "status",
                accountId: poster ? seeded.posterId : accountId,
                statusId: res.body.id,
              });
              if (poster) posts.push(res.body.id);
            }
          } else {
            const kind = i % 3 === 1 ? "favourite" : "bookmark";
            const res = await request(token, `/api/v1/statuses/${target}/${kind}`);
            if (res.status === 200) acknowledged.push({ kind, accountId, statusId: target });
          }
          await sleep(1000 / (n === 0 ? POSTS_PER_SECOND : WRITES_PER_SECOND));
        } catch {
          await sleep(20);
        }
      }
    };

    /** The posts not yet in every follower's feed (and the poster's). */
    const unfinishedPosts = async (ids: string[]) => {
      if (ids.length === 0) return 0;
      const rows = await server.rt.db
        .selectFrom("feed_entries")
        .select(["status_id", (eb) => eb.fn.countAll().as("n")])
        .where("status_id", "in", ids)
        .groupBy("status_id")
        .execute();
      return ids.length - rows.filter((r) => Number(r.n) === FOLLOWERS + 1).length;
    };
    const effectsDone = async (ids: string[]) => (await unfinishedPosts(ids)) === 0;

    const clients = [0, 1, 2, 3].map(client);
    const restarts: number[] = [];
    const effects: number[] = [];
    const unfinished: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      await sleep(1000 + Math.random() * 2000);
      // The kill comes right after a post is acknowledged, while its fan-out is under way.
      const acked = posts.length;
      while (posts.length === acked) await sleep(1);
      const before = posts.length;
      await server.kill();
      const pending = posts.slice(0, before);
      unfinished.push(await unfinishedPosts(pending));
      restarts.push(await server.start());
      const restarted = Date.now();
      while (!(await effectsDone(pending))) {
        if (Date.now() - restarted > 60_000) {
          const jobs = await server.rt.db.selectFrom("jobs").selectAll().where("type", "!=", "feeds.trim").execute();
          throw new Error(`effects not done within 60 s of a restart; jobs: ${JSON.stringify(jobs).slice(0, 3000)}`);
        }
        await sleep(20);
      }
      effects.push(Date.now() - restarted);
      log(
        `kill ${k + 1}/${KILLS}: ${acknowledged.length} writes acknowledged, ${unfinished.at(-1)} posts' fan-out unfinished at the kill, restart ${restarts.at(-1)} ms, effects ${effects.at(-1)} ms`,
      );
    }
    running = false;
    await Promise.all(clients);

    let lost = 0;
    const statuses = new Set(
      (await server.rt.db.selectFrom("statuses").select("id").where("deleted_at", "is", null).execute()).map(
        (r) => r.id,
      ),
    );
    const pairs = async (table: "favourites" | "bookmarks") =>
      new Set(
        (await server.rt.db.selectFrom(table).select(["account_id", "status_id"]).execute()).map(
          (r) => `${r.account_id}/${r.status_id}`,
        ),
      );
    const favourites = await pairs("favourites");
    const bookmarks = await pairs("bookmarks");
    for (const w of acknowledged) {
      const kept =
        w.kind === "status"
          ? statuses.has(w.statusId)
          : (w.kind === "favourite" ? favourites : bookmarks).has(`${w.accountId}/${w.statusId}`);
      if (!kept) lost++;
    }
    return {
      database,
      kills: KILLS,
      acknowledged: acknowledged.length,
      lost,
      interrupted: unfinished.reduce((a, b) => a + b, 0),
      restartMs: { p50: percentile(restarts, 50), max: Math.max(...restarts) },
      effectsMs: { p50: percentile(effects, 50), max: Math.max(...effects) },
    };
  } finally {
    await server.close();
  }
}

async function postgresReachable(url: string): Promise<boolean> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const results: Result[] = [];
if (ONLY !== "postgres") {
  log("SQLite…");
  results.push(await benchDatabase("sqlite", null));
}
if (ONLY !== "sqlite" && (await postgresReachable(PG_URL))) {
  log("PostgreSQL…");
  results.push(await benchDatabase("postgres", PG_URL));
}
console.log(
  "| database | kills | writes acknowledged | lost | fan-outs interrupted | restart p50 / max | every effect done after the restart, p50 / max |",
);
console.log("|---|---|---|---|---|---|---|");
for (const r of results) {
  console.log(
    `| ${r.database} | ${r.kills} | ${r.acknowledged} | ${r.lost} | ${r.interrupted} | ${r.restartMs.p50} / ${r.restartMs.max} ms | ${r.effectsMs.p50} / ${r.effectsMs.max} ms |`,
  );
}
if (results.some((r) => r.lost > 0)) process.exitCode = 1;

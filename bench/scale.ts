// The scale-out benchmark (`npm run bench:scale`): N `rookery web` and M `rookery worker`
// processes on one PostgreSQL database (a fresh one, made on --pg and dropped at the end) and Redis
// (--redis; a database number of its own, and every key under the server's own namespace), for each
// shape of --shapes (N×M: 1x1,2x1,2x2,4x2 by default). The load is spread over the web processes'
// ports in turns, as a load balancer would; all of them answer for one address (LOCAL_DOMAIN, the
// first one's), so signed requests sent to any of them check out. On the timeline benchmark's seed
// (200,000 statuses; a poster followed by 10,000 local accounts), for each shape:
//  1. the home timeline: 50 connections spread over the web processes, --seconds long;
//  2. --posts posts by the poster, one every two seconds, each fanned out by the workers to its
//     10,000 followers: how long until it is in every feed, and how long until its `update` reaches
//     each of --clients WebSocket clients (followers subscribed to `user`, spread over the web
//     processes, fed through Redis);
//  3. inbox ingest: --creates signed Create(Note) activities from 50 remote actors that a local
//     account follows, 50 at a time over the web processes: accepted and done a second;
//  4. with --kill yes, the queue's promises: jobs are audited by a trigger on `jobs` (each insert,
//     claim, failure and deletion), another --creates activities and two posts are sent, one worker is
//     killed (SIGKILL) in the middle (and started again when it was the only one), and the
//     benchmark checks that every job was done and that no job ran twice, but those the killed
//     worker held.
// For 1–3 it reads the CPU time (/proc) of the web processes, the workers, PostgreSQL's backends and
// Redis, per request, post or activity: from those, what a machine of C cores carries.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { sql } from "kysely";
import pg from "pg";
import WebSocket from "ws";
import { loadConfig } from "../src/config.ts";
import { type Db, openDatabase } from "../src/db/index.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { type RemoteServer, startRemoteServer } from "../test/remote_actors.ts";
import { drained, makeAlice, seedFollows, send, signedCreates } from "./ingest.ts";
import {
  backendCpuMs,
  backendCpuSpent,
  benchOptions,
  cpuMs,
  freePort,
  log,
  onLastCore,
  percentile,
  postgresDatabase,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";
import { seed } from "./seed.ts";

const options = benchOptions({
  shapes: process.env.BENCH_SHAPES ?? "1x1,2x1,2x2,4x2",
  seconds: process.env.BENCH_SECONDS ?? "10",
  posts: "5",
  clients: "1000",
  creates: "1000",
  kill: "yes",
  pg: process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/postgres",
  redis: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/9",
});
const SHAPES = options.shapes.split(",").map((s) => {
  const [web, workers] = s.split("x").map(Number);
  if (!(web >= 1 && workers >= 1)) throw new Error(`--shapes: ${s} is not NxM`);
  return { web, workers };
});
const SECONDS = Number(options.seconds);
const POSTS = Number(options.posts);
const CLIENTS = Number(options.clients);
const CREATES = Number(options.creates);
const CONNECTIONS = 50;
const ACTORS = Array.from({ length: 50 }, (_, i) => `poster${i}`);

/** CPU time so far, in ms: of the web processes, the workers, PostgreSQL's backends (by pid) and Redis. */
interface Cpu {
  web: number;
  workers: number;
  backends: Map<number, number>;
  redis: number;
}

/** The CPU each part spent between two readings, per unit of work (`count` of them). */
function spent(a: Cpu, b: Cpu, count: number) {
  const per = (ms: number) => ms / count;
  const web = per(b.web - a.web);
  const workers = per(b.workers - a.workers);
  const pg = per(backendCpuSpent(a.backends, b.backends));
  const redis = per(b.redis - a.redis);
  return { web, workers, pg, redis, all: web + workers + pg + redis };
}
type Spent = ReturnType<typeof spent>;

const cpuOr0 = (pid: number | undefined) => {
  try {
    return pid ? cpuMs(pid) : 0;
  } catch {
    return 0; // Gone (the killed worker).
  }
};

interface Shape {
  web: number;
  workers: number;
  home: { rps: number; p99: number; errors: number; cpu: Spent };
  posts: { feedP50: number; feedMax: number; deliveryP99: number; missed: number; cpu: Spent };
  ingest: { accepted: number; done: number; cpu: Spent };
  jobs: string;
}

async function main() {
  await configureLogging("warn");
  const database = await postgresDatabase(options.pg);
  if (!database) throw new Error(`PostgreSQL not reachable at ${options.pg}`);
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-scale-"));
  const redis = new Redis(options.redis, { lazyConnect: true });
  const remote = await startRemoteServer();
  let conn: Awaited<ReturnType<typeof openDatabase>> | null = null;
  const backends = new pg.Client({ connectionString: database.url });
  const results: Shape[] = [];
  try {
    await redis.connect();
    const redisPid = Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
    // Every process answers for the first web process's address.
    const domainPort = await freePort();
    const origin = `http://127.0.0.1:${domainPort}`;
    const env = {
      ...serverEnv(domainPort, dataDir, database.url),
      REDIS_URL: options.redis,
      RATE_LIMITS: "off",
      ALLOW_PRIVATE_ADDRESSES: "true",
    };

    log("seeding: 200,000 statuses, a poster with 10,000 followers…");
    const rt = await createRuntime(loadConfig(env));
    const seeded = await seed(rt);
    const app = await createApplication(rt, {
      name: "bench",
      redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
      scopes: ["read", "write", "follow"],
    });
    const aliceToken = await makeAlice(rt, app.id);
    // The streaming clients: the poster's first followers.
    const followers = await rt.db
      .selectFrom("follows as f")
      .innerJoin("users as u", "u.account_id", "f.account_id")
      .select(["u.id as userId", "f.account_id as accountId"])
      .where("f.target_account_id", "=", seeded.posterId)
      .orderBy("f.id")
      .execute();
    const clientTokens: string[] = [];
    for (const f of followers.slice(0, CLIENTS))
      clientTokens.push((await issueToken(rt, { applicationId: app.id, userId: f.userId, scopes: ["read"] })).token);
    const lastFollower = followers.at(-1)!.accountId;
    await rt.close();

    conn = await openDatabase(database.url, { poolSize: 1 });
    const db = conn.db;
    await backends.connect();
    // The benchmark's own connection is left out of PostgreSQL's CPU time.
    const ownPid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0].pid;

    let sent = 0;
    for (const [i, shape] of SHAPES.entries()) {
      log(`${shape.web} web × ${shape.workers} worker processes`);
      const webPorts = [domainPort, ...(await Promise.all(Array.from({ length: shape.web - 1 }, freePort)))];
      const workers: ChildProcess[] = [];
      const webs: ChildProcess[] = [];
      try {
        for (let w = 0; w < shape.workers; w++)
          workers.push(await startRookery({ ...env, METRICS_PORT: String(await freePort()) }, 0, "worker"));
        for (const port of webPorts) webs.push(await startRookery(env, port, "web"));
        const cpu = async (): Promise<Cpu> => ({
          web: webs.reduce((sum, p) => sum + cpuOr0(p.pid), 0),
          workers: workers.reduce((sum, p) => sum + cpuOr0(p.pid), 0),
          backends: await backendCpuMs(backends, [ownPid]),
          redis: cpuOr0(redisPid),
        });
        if (i === 0) {
          log("the remote actors follow alice, and she them…");
          await seedFollows(origin, db, aliceToken, remote, ACTORS);
        } else {
          // The shape before filled 10,000 feeds with its posts: PostgreSQL's statistics, taken when
          // one feed held every entry, must follow, or a home page reads other feeds' entries (0.2 →
          // 4.6 ms of PostgreSQL's CPU a request). Autovacuum does this where it runs; on the
          // machines that run the tests it is off.
          await sql`analyze`.execute(db);
        }
        const home = await homeTimeline(webPorts, seeded.readerToken, cpu);
        log(`home: ${home.rps} requests/s, p99 ${home.p99} ms, ${home.cpu.all.toFixed(2)} ms of CPU a request`);
        const posts = await posting(webPorts, seeded.posterToken, clientTokens, db, lastFollower, cpu);
        log(
          `posts: in every feed after ${posts.feedP50}–${posts.feedMax} ms; delivery p99 ${posts.deliveryP99} ms, ${posts.missed} missed`,
        );
        const inbox = `${origin}/inbox`;
        const via = webPorts.map((p) => `http://127.0.0.1:${p}`);
        const stored = async () =>
          Number((await sql<{ n: string }>`select count(*) as n from statuses where not local`.execute(db)).rows[0].n);
        // A warm-up of a fifth, not counted.
        const warmup = Math.ceil(CREATES / 5);
        const before = await stored();
        const { refused: warmRefused } = await send(signedCreates(remote, ACTORS, inbox, sent, warmup, via), 50, null);
        sent += warmup;
        await drained(db, async () => (await stored()) >= before + warmup - warmRefused);
        const ingest = await ingestion(remote, inbox, via, sent, db, stored, cpu);
        sent += CREATES;
        log(`ingest: ${ingest.accepted} accepted and ${ingest.done} done a second`);
        let jobs = "not checked";
        if (options.kill === "yes") {
          jobs = await jobsCheck(env, workers, webPorts, seeded.posterToken, remote, inbox, via, sent, db, stored);
          sent += CREATES;
          log(`jobs: ${jobs}`);
        }
        results.push({ ...shape, home, posts, ingest, jobs });
      } finally {
        await Promise.all([...webs, ...workers].map((p) => stopRookery(p)));
      }
    }
  } finally {
    await backends.end().catch(() => {});
    await conn?.close();
    await remote.close();
    redis.disconnect();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  report(results);
}

/** The home timeline, CONNECTIONS spread over the web processes, each measured by its own load generator. */
async function homeTimeline(ports: number[], token: string, cpu: () => Promise<Cpu>) {
  const run = (duration: number) =>
    onLastCore(() =>
      Promise.all(
        ports.map((port) =>
          autocannon({
            url: `http://127.0.0.1:${port}/api/v1/timelines/home?limit=20`,
            connections: Math.ceil(CONNECTIONS / ports.length),
            duration,
            headers: { authorization: `Bearer ${token}` },
          }),
        ),
      ),
    );
  await run(3);
  const before = await cpu();
  const runs = await run(SECONDS);
  const after = await cpu();
  const requests = runs.reduce((sum, r) => sum + r.requests.total, 0);
  return {
    rps: Math.round(runs.reduce((sum, r) => sum + r.requests.average, 0)),
    // The slowest process's.
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    errors: runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    cpu: spent(before, after, requests),
  };
}

/** Posts fanned out to 10,000 feeds, and streamed to the clients (followers) spread over the web processes. */
async function posting(
  ports: number[],
  posterToken: string,
  clientTokens: string[],
  db: Db,
  lastFollower: string,
  cpu: () => Promise<Cpu>,
) {
  const arrivals = new Map<string, number[]>();
  const sockets: WebSocket[] = [];
  try {
    for (let i = 0; i < clientTokens.length; i += 100) {
      await Promise.all(
        clientTokens.slice(i, i + 100).map(
          (token, j) =>
            new Promise<void>((resolve, reject) => {
              const port = ports[(i + j) % ports.length];
              const socket = new WebSocket(`ws://127.0.0.1:${port}/api/v1/streaming?stream=user`, [token], {
                perMessageDeflate: false,
              });
              socket.on("open", () => resolve());
              socket.on("error", reject);
              socket.on("message", (data) => {
                const at = performance.now();
                const frame = String(data);
                if (!frame.startsWith('{"stream":["user"],"event":"update"')) return;
                const id = /\\"id\\":\\"(\d+)\\"/.exec(frame)?.[1];
                if (id) (arrivals.get(id) ?? arrivals.set(id, []).get(id)!).push(at);
              });
              sockets.push(socket);
            }),
        ),
      );
    }
    const before = await cpu();
    const posted: { id: string; accepted: number; wall: number }[] = [];
    // Each post's arrival in the last follower's feed (the chunks go in follow order), watched
    // from its answer on, while the next posts are made.
    const inFeeds = new Map<string, number>();
    let posting = true;
    const watching = (async () => {
      const deadline = performance.now() + POSTS * 2000 + 60_000;
      while (performance.now() < deadline) {
        const waiting = posted.filter((p) => !inFeeds.has(p.id));
        if (waiting.length > 0) {
          const { rows } = await sql<{ status_id: string }>`select status_id from feed_entries
            where feed_id = ${lastFollower} and status_id in (${sql.join(waiting.map((p) => p.id))})`.execute(db);
          for (const r of rows) inFeeds.set(String(r.status_id), performance.now());
        }
        const delivered = posted.every((p) => (arrivals.get(p.id)?.length ?? 0) >= clientTokens.length);
        if (!posting && waiting.length === 0 && delivered) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    for (let i = 0; i < POSTS; i++) {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${ports[i % ports.length]}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: `Bearer ${posterToken}`, "content-type": "application/json" },
        body: JSON.stringify({ status: `Scaled post ${i}` }),
      });
      const body = (await res.json()) as { id: string };
      if (res.status !== 200) throw new Error(`POST /api/v1/statuses: ${res.status} ${JSON.stringify(body)}`);
      posted.push({ id: body.id, accepted: performance.now(), wall: Date.now() });
      await new Promise((r) => setTimeout(r, Math.max(0, 2000 - (performance.now() - started))));
    }
    posting = false;
    await watching;
    const after = await cpu();
    const feedTimes = posted.filter((p) => inFeeds.has(p.id)).map((p) => inFeeds.get(p.id)! - p.accepted);
    const deliveries = posted.flatMap((p) => (arrivals.get(p.id) ?? []).map((t) => t - p.accepted));
    const ms = (v: number) => Math.round(v);
    return {
      feedP50: feedTimes.length ? ms(percentile(feedTimes, 50)) : -1,
      feedMax: feedTimes.length === posted.length ? ms(Math.max(...feedTimes)) : -1,
      deliveryP99: deliveries.length ? ms(percentile(deliveries, 99)) : -1,
      missed: posted.length * clientTokens.length - deliveries.length,
      cpu: spent(before, after, POSTS),
    };
  } finally {
    for (const s of sockets) s.terminate();
  }
}

async function ingestion(
  remote: RemoteServer,
  inbox: string,
  via: string[],
  from: number,
  db: Db,
  stored: () => Promise<number>,
  cpu: () => Promise<Cpu>,
) {
  const requests = signedCreates(remote, ACTORS, inbox, from, CREATES, via);
  const storedBefore = await stored();
  const before = await cpu();
  const started = performance.now();
  const { refused } = await send(requests, 50, null);
  const acceptedAt = performance.now();
  await drained(db, async () => (await stored()) >= storedBefore + CREATES - refused);
  const doneAt = performance.now();
  const after = await cpu();
  const accepted = CREATES - refused;
  return {
    accepted: Math.round(accepted / ((acceptedAt - started) / 1000)),
    done: Math.round(accepted / ((doneAt - started) / 1000)),
    cpu: spent(before, after, accepted),
  };
}

/**
 * The queue's promises, from a trigger's record of every job's insert, claim (its attempts going
 * up), failure and deletion: activities and posts while a worker is killed midway. Every job
 * inserted must be deleted (none left due, none given up); a job claimed twice must have been held
 * by the killed worker, or have failed (and so been tried again). Returns what it found, in words.
 */
async function jobsCheck(
  env: Record<string, string>,
  workers: ChildProcess[],
  ports: number[],
  posterToken: string,
  remote: RemoteServer,
  inbox: string,
  via: string[],
  from: number,
  db: Db,
  stored: () => Promise<number>,
): Promise<string> {
  await sql`create table if not exists bench_job_events (
      job_id bigint not null, event text not null, holder text, at timestamptz not null default clock_timestamp())`.execute(
    db,
  );
  await sql`truncate bench_job_events`.execute(db);
  await sql`create or replace function bench_job_event() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then insert into bench_job_events (job_id, event) values (new.id, 'insert');
      elsif tg_op = 'DELETE' then insert into bench_job_events (job_id, event) values (old.id, 'done');
      elsif new.attempts > old.attempts then
        insert into bench_job_events (job_id, event, holder) values (new.id, 'claim', new.locked_by);
      elsif new.last_error is distinct from old.last_error then
        insert into bench_job_events (job_id, event) values (new.id, 'failed');
      end if;
      return null;
    end $$`.execute(db);
  await sql`create or replace trigger bench_job_events after insert or update or delete on jobs
    for each row execute function bench_job_event()`.execute(db);
  try {
    const victim = workers[0];
    const storedBefore = await stored();
    const sending = send(signedCreates(remote, ACTORS, inbox, from, CREATES, via), 50, null);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${ports[i % ports.length]}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: `Bearer ${posterToken}`, "content-type": "application/json" },
        body: JSON.stringify({ status: `Post while a worker dies ${i}` }),
      });
      if (res.status !== 200) throw new Error(`POST /api/v1/statuses: ${res.status}`);
    }
    // Killed once it has claimed a few dozen jobs.
    const claimsOf = async (pid: number) =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from bench_job_events
            where event = 'claim' and holder like ${`%:${pid}:%`}`.execute(db)
        ).rows[0].n,
      );
    for (let i = 0; i < 600 && (await claimsOf(victim.pid!)) < 50; i++) await new Promise((r) => setTimeout(r, 50));
    victim.kill("SIGKILL");
    await new Promise((r) => victim.once("exit", r));
    // The only worker: another takes its place (releasing its leases at once, on the same host).
    if (workers.length === 1)
      workers[0] = await startRookery({ ...env, METRICS_PORT: String(await freePort()) }, 0, "worker");
    else workers.shift();
    const { refused } = await sending;
    await drained(db, async () => (await stored()) >= storedBefore + CREATES - refused);
    const { rows } = await sql<{
      inserted: string;
      done: string;
      left: string;
      twice: string;
      twiceHeld: string;
      retried: string;
    }>`with claims as (
          select job_id, count(*) filter (where event = 'claim') as n,
            bool_or(holder like ${`%:${victim.pid}:%`}) as held, bool_or(event = 'failed') as failed
          from bench_job_events group by job_id)
        select
          (select count(*) from bench_job_events where event = 'insert') as inserted,
          (select count(*) from bench_job_events e where event = 'insert'
             and exists (select 1 from bench_job_events d where d.job_id = e.job_id and d.event = 'done')) as done,
          (select count(*) from bench_job_events e join jobs j on j.id = e.job_id
             where e.event = 'insert' and (j.failed_at is not null or j.run_at <= now())) as left,
          (select count(*) from claims where n > 1 and not held and not failed) as twice,
          (select count(*) from claims where n > 1 and held) as "twiceHeld",
          (select count(*) from claims where n > 1 and not held and failed) as retried`.execute(db);
    const r = rows[0];
    const lost = Number(r.left);
    const twice = Number(r.twice);
    const verdict = lost === 0 && twice === 0 ? "ok" : "FAILED";
    return `${verdict}: ${r.inserted} jobs, ${r.done} done, ${lost} left due or given up; ${twice} run twice by live workers; ${r.twiceHeld} held by the killed worker run again; ${r.retried} tried again after failing; ${(await stored()) - storedBefore} of ${CREATES - refused} activities stored`;
  } finally {
    await sql`drop trigger if exists bench_job_events on jobs`.execute(db);
  }
}

function report(results: Shape[]) {
  const f = (n: number) => n.toFixed(2);
  const cpu = (c: Spent) => `${f(c.web)} / ${f(c.workers)} / ${f(c.pg)} / ${f(c.redis)}`;
  const cores = availableParallelism();
  console.log(
    [
      `Scale-out on PostgreSQL and Redis (this machine: ${cores} cores; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(", ")} at the end)`,
      "",
      `| web × workers | home timeline (req/s, p99) | CPU ms per request: web / workers / PostgreSQL / Redis | post → every one of 10,000 feeds (p50–max) | → ${CLIENTS} sockets (p99, missed) | CPU ms per post | inbox (accepted / done a second) | CPU ms per activity | jobs with a worker killed |`,
      "|---|---|---|---|---|---|---|---|---|",
      ...results.map(
        (r) =>
          `| ${r.web} × ${r.workers} | ${r.home.rps}, ${r.home.p99} ms${r.home.errors ? ` (${r.home.errors} errors)` : ""} | ${cpu(r.home.cpu)} | ${r.posts.feedP50}–${r.posts.feedMax} ms | ${r.posts.deliveryP99} ms, ${r.posts.missed} | ${cpu(r.posts.cpu)} | ${r.ingest.accepted} / ${r.ingest.done} | ${cpu(r.ingest.cpu)} | ${r.jobs} |`,
      ),
      "",
      "What three machines of 16 cores would carry, from the CPU each unit of work took here in all (every part on the same cores, none idle):",
      ...results.map((r) => {
        const per = (c: Spent) => Math.round((3 * 16 * 1000) / c.all);
        return `- ${r.web} × ${r.workers}: ${per(r.home.cpu)} home timeline requests/s, or ${per(r.ingest.cpu)} inbox activities/s, or ${per(r.posts.cpu)} posts/s to 10,000 followers`;
      }),
    ].join("\n"),
  );
}

await main();

// The federation benchmark (`npx node bench/federation.ts`), in two parts:
//  1. inbox ingest, against `rookery serve` started as its own process in its default
//     configuration (web threads take the requests, the main thread's job worker drains the
//     jobs): BENCH_CREATES (2,000 by default) Create(Note) activities from 50 remote actors that
//     a local account follows (so their keys are known and each post goes to a home feed), signed
//     beforehand and posted 50 at a time to the shared inbox from a thread of this process, after
//     BENCH_WARMUP (1,000 by default) others have been sent and drained, so that what is measured
//     is a warm server's work rather than its JIT compiler's. It reports how many per second the
//     inbox accepts (202s over the posting time), how many per second are done (every status
//     stored and no job left, counting from the first request), and the server process's CPU time
//     per activity (/proc/PID/stat), and on PostgreSQL that of the server's backends too (their
//     /proc/PID/stat);
//  2. delivery: one post of an account with 1,000 followers spread over 100 loopback servers;
//     how many deliveries arrive (one per server's shared inbox, not one per follower) and when the
//     last one does. This part runs the server in this process.
// The stand-in remote servers live in this process. SQLite by default; BENCH_DATABASE_URL (an
// admin URL: a throwaway database is made on it) runs the ingest on PostgreSQL, and
// TEST_DATABASE_URL the delivery part. BENCH_PARTS=ingest runs the ingest only.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/index.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { loadActivity } from "../test/activity_fixtures.ts";
import { type RemoteServer, startRemoteServer } from "../test/remote_actors.ts";
import { startServer } from "../test/rig.ts";
import { drained, fill, post, seedFollows, send, signedCreates } from "./ingest.ts";
import {
  backendCpuMs,
  backendCpuSpent,
  cpuMs,
  freePort,
  log,
  postgresDatabase,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";
import { pool } from "./pool.ts";

const CREATES = Number(process.env.BENCH_CREATES ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const CONCURRENCY = 50;
/** Requests per second the load offers (BENCH_RATE); unset, as fast as the server takes them. */
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
const PARTS = (process.env.BENCH_PARTS ?? "ingest,delivery").split(",");

async function ingestOn(databaseUrl: string, dataDir: string): Promise<void> {
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const env = { ...serverEnv(port, dataDir, databaseUrl), ALLOW_PRIVATE_ADDRESSES: "true", RATE_LIMITS: "off" };
  const remote = await startRemoteServer();
  const names = Array.from({ length: 50 }, (_, i) => `poster${i}`);
  let child = null;
  let conn = null;
  // PostgreSQL: a connection that reads the CPU time of the server's backends.
  const backends = databaseUrl.startsWith("postgres") ? new pg.Client({ connectionString: databaseUrl }) : null;
  try {
    // The local account and its token go straight into the database, before the server starts.
    const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
    const app = await createApplication(rt, {
      name: "bench",
      redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
      scopes: ["read", "write", "follow"],
    });
    const alice = await createLocalUser(rt, {
      username: "alice",
      email: "alice@example.test",
      password: "correct horse battery staple",
      roleId: null,
    });
    const { token } = await issueToken(rt, {
      applicationId: app.id,
      userId: alice.userId,
      scopes: ["read", "write", "follow"],
    });
    await rt.close();

    child = await startRookery(env, port);
    conn = await openDatabase(databaseUrl, { sqliteCheckpoints: false, poolSize: 1 });
    const db = conn.db;
    await seedFollows(serverUrl, db, token, remote, names);

    const inbox = `${serverUrl}/inbox`;
    /** `count` signed Create(Note) activities, numbered from `from`. */
    const batch = (from: number, count: number) => signedCreates(remote, names, inbox, from, count);
    const stored = async () => {
      const row = await db
        .selectFrom("statuses")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("local", "=", false)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    // A server runs warm: its code compiled by the JIT and its caches filled. The warm-up's
    // activities are sent and drained first, and measured apart from the rest.
    let warmup = "";
    if (WARMUP > 0) {
      const warmupStarted = performance.now();
      const { refused } = await send(batch(0, WARMUP), CONCURRENCY, null);
      await drained(db, async () => (await stored()) >= WARMUP - refused);
      const secs = ((performance.now() - warmupStarted) / 1000).toFixed(2);
      warmup = `  warm-up: ${WARMUP - refused} activities accepted and done in ${secs} s, not counted below`;
    }
    const requests = batch(WARMUP, CREATES);
    const storedBefore = await stored();

    // The benchmark's own connection (poolSize 1) is left out of PostgreSQL's CPU time.
    const ownPid = backends ? (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0].pid : 0;
    await backends?.connect();
    const pgCpu = async () => (backends ? backendCpuMs(backends, [ownPid]) : new Map<number, number>());

    // PostgreSQL's commits in the database (the server's transactions and statements outside one, and
    // the benchmark's polls, about 20 a second): each backend reports its counts once idle for 10 s
    // at the latest, so they are read after that long.
    const commits = async () => {
      if (!backends) return 0;
      await new Promise((r) => setTimeout(r, 11_000));
      const { rows } = await backends.query<{ n: string }>(
        "select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()",
      );
      return Number(rows[0].n);
    };
    const commitsStarted = await commits();
    const pgStarted = await pgCpu();
    const cpuStarted = cpuMs(child.pid!);
    const started = performance.now();
    const { refused, cpuMs: loadCpuMs } = await send(requests, CONCURRENCY, RATE);
    const acceptedAt = performance.now();
    const cpuAccepted = cpuMs(child.pid!);
    const pgAccepted = await pgCpu();
    await drained(db, async () => (await stored()) >= storedBefore + CREATES - refused);
    const drainedAt = performance.now();
    const cpuDrained = cpuMs(child.pid!);
    const pgDrained = await pgCpu();
    const commitsDrained = await commits();
    const home = await fetch(`${serverUrl}/api/v1/timelines/home?limit=40`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const shown = ((await home.json()) as unknown[]).length;

    const secs = (ms: number) => (ms / 1000).toFixed(2);
    const accepted = CREATES - refused;
    console.log(
      `Inbox ingest (${databaseUrl.startsWith("sqlite") ? "sqlite" : "postgres"}), rookery serve as its own process`,
    );
    if (warmup) console.log(warmup);
    const pace = RATE ? `, offered at ${RATE}/s` : "";
    console.log(
      `  ${CREATES} signed Create(Note) from ${names.length} followed actors, ${CONCURRENCY} at a time${pace}`,
    );
    console.log(
      `  accepted ${accepted} (${refused} refused) in ${secs(acceptedAt - started)} s: ${Math.round(accepted / ((acceptedAt - started) / 1000))}/s accepted (target: 500/s)`,
    );
    console.log(
      `  all done ${secs(drainedAt - started)} s after the first request: ${Math.round(accepted / ((drainedAt - started) / 1000))}/s drained; ${(await stored()) - storedBefore} statuses stored, home feed shows ${shown} of its first 40`,
    );
    console.log(`  the last done ${secs(drainedAt - acceptedAt)} s after the last was accepted`);
    console.log(
      `  server CPU: ${((cpuDrained - cpuStarted) / accepted).toFixed(2)} ms per activity in all (${((cpuAccepted - cpuStarted) / accepted).toFixed(2)} ms of it while the requests came in)`,
    );
    console.log(`  load generator's CPU, on the same cores: ${(loadCpuMs / CREATES).toFixed(2)} ms per request`);
    if (backends) {
      const perActivity = (ms: number) => (ms / accepted).toFixed(2);
      console.log(
        `  PostgreSQL backends' CPU: ${perActivity(backendCpuSpent(pgStarted, pgDrained))} ms per activity in all (${perActivity(backendCpuSpent(pgStarted, pgAccepted))} ms of it while the requests came in)`,
      );
      console.log(`  PostgreSQL commits: ${perActivity(commitsDrained - commitsStarted)} per activity`);
    }
  } finally {
    await backends?.end();
    await conn?.close();
    await stopRookery(child);
    await remote.close();
  }
}

async function ingest(): Promise<void> {
  await configureLogging("warn");
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-federation-"));
  try {
    await ingestOn(`sqlite:${join(dataDir, "rookery.sqlite")}`, dataDir);
    const admin = process.env.BENCH_DATABASE_URL;
    const pg = admin ? await postgresDatabase(admin) : null;
    if (admin && !pg) log(`(no PostgreSQL at ${admin}; its run is left out)`);
    if (pg) {
      try {
        await ingestOn(pg.url, dataDir);
      } finally {
        await pg.drop();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function delivery(): Promise<void> {
  const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  const remotes: RemoteServer[] = [];
  try {
    const alice = await server.user("alice");
    for (let i = 0; i < 100; i++) remotes.push(await startRemoteServer());
    // 1,000 followers: 10 on each of 100 servers.
    const follows = remotes.flatMap((remote) =>
      Array.from({ length: 10 }, (_, j) => () => {
        const name = `follower${j}`;
        const follow = loadActivity("mastodon/follow", fill(server.url, remote, name));
        follow.id = `${remote.actor(name).id}#follows/alice`;
        return post(`${server.url}/users/alice/inbox`, follow, remote, name);
      }),
    );
    const refused = (await pool(follows, CONCURRENCY)).filter((s) => s !== 202).length;
    if (refused > 0) log(`  (${refused} follows were refused)`);
    await server.settle();
    const account = await server.get(`/api/v1/accounts/${alice.accountId}`, { token: alice.token });
    for (const remote of remotes) remote.deliveries.length = 0;

    const started = performance.now();
    const posted = await server.post("/api/v1/statuses", {
      token: alice.token,
      json: { status: "to all my followers" },
    });
    if (posted.status !== 200) throw new Error(posted.text);
    const arrived = () =>
      remotes.reduce((n, r) => n + r.deliveries.filter((d) => d.body.includes(posted.body.uri)).length, 0);
    const deadline = started + 60_000;
    while (arrived() < remotes.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const done = performance.now();
    await server.settle();
    const servers = remotes.filter((r) => r.deliveries.some((d) => d.body.includes(posted.body.uri))).length;
    log(`delivery: one post of an account with ${account.body.followers_count} followers on ${remotes.length} servers`);
    log(
      `  ${arrived()} deliveries reached ${servers} servers; the last ${((done - started) / 1000).toFixed(2)} s after the post`,
    );
  } finally {
    await server.close();
    for (const remote of remotes) await remote.close();
  }
}

if (PARTS.includes("ingest")) await ingest();
if (PARTS.includes("delivery")) await delivery();

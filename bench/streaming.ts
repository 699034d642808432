// The streaming benchmark (`npm run bench:streaming`): one server process (`rookery serve`, one
// web thread) holding --clients (5,000) idle WebSocket clients, each subscribed to `user`, 1,000 of
// them also to `public:local`; a poster followed by --followers of the clients (all of them by
// default) posts --posts times at 2 a second. It reports the server's memory per idle connection,
// and for each post the time from its POST being answered (the post accepted) to its `update`
// reaching every follower's socket (p50, p99, max), and to each single delivery. SQLite by default;
// BENCH_PG_URL (an admin URL such as postgres://root@127.0.0.1:5432/postgres) runs it on a fresh
// PostgreSQL database instead.
// The load generator shares the machine with the server: the numbers include its own work.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { loadConfig } from "../src/config.ts";
import { newId } from "../src/domain/ids.ts";
import { hashPassword, randomToken, sha256 } from "../src/domain/secrets.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { localAccountRow, userRow } from "../src/services/accounts/account_row.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import {
  benchOptions,
  freePort,
  log,
  memoryKb,
  percentile,
  postgresDatabase,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";

const options = benchOptions({
  clients: process.env.BENCH_CLIENTS ?? "5000",
  followers: process.env.BENCH_FOLLOWERS ?? "",
  posts: process.env.BENCH_POSTS ?? "100",
});
const CLIENTS = Number(options.clients);
const FOLLOWERS = Number(options.followers || CLIENTS);
const PUBLIC_LOCAL = Number(process.env.BENCH_PUBLIC_LOCAL ?? 1000);
const POSTS = Number(options.posts);
const WARMUP_POSTS = 5;
const POSTS_PER_SECOND = 2;
const BATCH = 500;

/** Accounts `client0…` (the first FOLLOWERS follow the poster) and the poster, with a token each. */
async function seed(rt: Runtime): Promise<{ tokens: string[]; posterToken: string }> {
  const passwordHash = await hashPassword("benchmark password");
  const names = [...Array.from({ length: CLIENTS }, (_, i) => `client${i}`), "poster"];
  const ids = names.map(() => newId());
  const app = await createApplication(rt, {
    name: "Benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const tokens = names.map(() => randomToken());
  const now = new Date();
  const insert = async (table: string, rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += BATCH)
      await rt.db
        .insertInto(table as never)
        .values(rows.slice(i, i + BATCH) as never)
        .execute();
  };
  await insert(
    "accounts",
    names.map((n, i) => localAccountRow(rt.config, n, { id: ids[i], display_name: n }) as Record<string, unknown>),
  );
  const userIds = names.map(() => newId());
  await insert(
    "users",
    names.map((n, i) =>
      userRow(
        { id: userIds[i], account_id: ids[i], email: `${n}@bench.test`, password_hash: passwordHash },
        { created_at: now },
      ),
    ),
  );
  await insert(
    "account_stats",
    names.map((n, i) => ({
      account_id: ids[i],
      followers_count: n === "poster" ? FOLLOWERS : 0,
      following_count: i < FOLLOWERS ? 1 : 0,
      statuses_count: 0,
      last_status_at: null,
    })),
  );
  await insert(
    "follows",
    Array.from({ length: FOLLOWERS }, (_, i) => ({
      id: newId(),
      account_id: ids[i],
      target_account_id: ids[CLIENTS],
      show_reblogs: true,
      notify: false,
      languages: null,
      uri: null,
      created_at: now,
    })),
  );
  await insert(
    "oauth_access_tokens",
    names.map((_, i) => ({
      id: newId(),
      token_hash: sha256(tokens[i]),
      application_id: app.id,
      user_id: userIds[i],
      scopes: "read write",
      created_at: now,
      revoked_at: null,
      last_used_at: null,
    })),
  );
  return { tokens: tokens.slice(0, CLIENTS), posterToken: tokens[CLIENTS] };
}

/** CPU time the process has used, in ms (user + system; /proc counts in hundredths of a second). */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The status id in an `update` frame: the first id of its payload (a JSON string inside JSON). */
const idOf = (frame: string) => /\\"id\\":\\"(\d+)\\"/.exec(frame)?.[1] ?? null;

async function main() {
  await configureLogging("warn");
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-streaming-"));
  const admin = process.env.BENCH_PG_URL;
  const pgDb = admin ? await postgresDatabase(admin) : null;
  if (admin && !pgDb) throw new Error(`PostgreSQL not reachable at ${admin}`);
  const databaseUrl = pgDb?.url ?? `sqlite:${join(dataDir, "rookery.sqlite")}`;
  const port = await freePort();
  const env = { ...serverEnv(port, dataDir, databaseUrl), WEB_THREADS: "1", RATE_LIMITS: "false" };
  let server: ChildProcess | null = null;
  const sockets: WebSocket[] = [];
  try {
    log(`seeding ${admin ? "postgres" : "sqlite"}: ${CLIENTS} clients, ${FOLLOWERS} following the poster`);
    const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
    const { tokens, posterToken } = await seed(rt);
    await rt.close();

    server = await startRookery(env, port);
    const base = `http://127.0.0.1:${port}`;
    await sleep(1000);
    const rssBefore = memoryKb(server.pid!, "VmRSS") * 1024;

    // Arrival times of each status at each follower's `user` stream, and at `public:local`.
    const arrivals = new Map<string, number[]>();
    const publicArrivals = new Map<string, number[]>();
    const record = (map: Map<string, number[]>, id: string | null, at: number) => {
      if (!id) return;
      const list = map.get(id);
      if (list) list.push(at);
      else map.set(id, [at]);
    };
    log(`opening ${CLIENTS} sockets`);
    const ws = `ws://127.0.0.1:${port}/api/v1/streaming?stream=user`;
    for (let i = 0; i < CLIENTS; i += 100) {
      await Promise.all(
        tokens.slice(i, i + 100).map(
          (token, j) =>
            new Promise<void>((resolve, reject) => {
              const n = i + j;
              const socket = new WebSocket(ws, [token], { perMessageDeflate: false });
              socket.on("open", () => {
                // The last PUBLIC_LOCAL clients take public:local too.
                if (n >= CLIENTS - PUBLIC_LOCAL)
                  socket.send(JSON.stringify({ type: "subscribe", stream: "public:local" }));
                resolve();
              });
              socket.on("error", reject);
              socket.on("message", (data) => {
                const at = performance.now();
                const frame = String(data);
                if (frame.startsWith('{"stream":["user"],"event":"update"')) record(arrivals, idOf(frame), at);
                else if (frame.startsWith('{"stream":["public:local"],"event":"update"'))
                  record(publicArrivals, idOf(frame), at);
              });
              sockets.push(socket);
            }),
        ),
      );
    }
    await sleep(3000);
    const rssAfter = memoryKb(server.pid!, "VmRSS") * 1024;
    const perConnection = (rssAfter - rssBefore) / CLIENTS;
    log(`server RSS ${Math.round(rssBefore / 2 ** 20)} MiB → ${Math.round(rssAfter / 2 ** 20)} MiB`);

    const post = async (i: number) => {
      const res = await fetch(`${base}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: `Bearer ${posterToken}`, "content-type": "application/json" },
        body: JSON.stringify({ status: `Streamed status ${i}` }),
      });
      const accepted = performance.now();
      if (res.status !== 200) throw new Error(`POST /api/v1/statuses: ${res.status}`);
      const { id } = (await res.json()) as { id: string };
      return { id, accepted };
    };
    log(`${WARMUP_POSTS} warm-up posts, then ${POSTS} at ${POSTS_PER_SECOND}/s`);
    const posted: { id: string; accepted: number }[] = [];
    let cpuStart = 0;
    for (let i = 0; i < WARMUP_POSTS + POSTS; i++) {
      const started = performance.now();
      if (i === WARMUP_POSTS) cpuStart = cpuOf(server.pid!);
      const p = await post(i);
      if (i >= WARMUP_POSTS) posted.push(p);
      await sleep(Math.max(0, 1000 / POSTS_PER_SECOND - (performance.now() - started)));
    }
    const last = posted.at(-1)!.id;
    for (let i = 0; i < 100 && (arrivals.get(last)?.length ?? 0) < FOLLOWERS; i++) await sleep(100);
    await sleep(500);
    const cpuPerPost = (cpuOf(server.pid!) - cpuStart) / POSTS;

    const toAll: number[] = [];
    const each: number[] = [];
    const publicEach: number[] = [];
    let missing = 0;
    for (const { id, accepted } of posted) {
      const times = arrivals.get(id) ?? [];
      missing += FOLLOWERS - times.length;
      for (const t of times) each.push(t - accepted);
      if (times.length > 0) toAll.push(Math.max(...times) - accepted);
      for (const t of publicArrivals.get(id) ?? []) publicEach.push(t - accepted);
    }
    const ms = (v: number) => v.toFixed(1);
    console.log(
      [
        "Target: post → update at every follower, p99 under 500 ms; memory per idle connection reported.",
        "",
        `| clients | memory per idle connection | post → update at every follower (p50 / p99 / max) | each delivery p99 | public:local delivery p99 | server CPU per post | missed | load average |`,
        "|---|---|---|---|---|---|---|---|",
        `| ${CLIENTS} (${FOLLOWERS} followers, ${PUBLIC_LOCAL} on public:local) | ${(perConnection / 1024).toFixed(1)} KiB | ${ms(percentile(toAll, 50))} / ${ms(percentile(toAll, 99))} / ${ms(Math.max(...toAll))} ms | ${ms(percentile(each, 99))} ms | ${publicEach.length ? ms(percentile(publicEach, 99)) : "-"} ms | ${cpuPerPost.toFixed(0)} ms | ${missing} | ${loadavg()[0].toFixed(1)} |`,
        "",
      ].join("\n"),
    );
  } finally {
    for (const s of sockets) s.terminate();
    await stopRookery(server);
    await pgDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

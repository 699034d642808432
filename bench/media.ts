// The media benchmark (`npx node bench/media.ts`): ten concurrent uploads of a 4 MB JPEG (a 12
// megapixel photo) to POST /api/v2/media, in rounds, each timed to its answer (202 once stored, or
// 200 processed) and to being processed (a 202's media polled every 100 ms, as clients do); the
// home timeline benchmark runs alongside, its p99 compared with the same load without uploads. Reports the
// server's CPU time per upload (uploads one at a time, nothing else running) and its peak memory
// (VmHWM). SQLite by default; BENCH_DATABASE_URL for PostgreSQL.
// The server runs as its own process (`rookery serve`), as in production.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { loadConfig } from "../src/config.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import {
  cpuMs,
  cpuMsByThread,
  freePort,
  log,
  memoryKb,
  onLastCore,
  percentile,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";
import { type Seeded, seed } from "./seed.ts";
import { multipart, photo, upload } from "./uploads.ts";

const CONCURRENT = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const TIMELINE_CONNECTIONS = 10;
/** Uploads made one at a time, nothing else running, to measure the server's CPU time per upload. */
const ALONE = 10;

async function timeline(url: string, token: string, duration: number) {
  const r = await autocannon({
    url,
    connections: TIMELINE_CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${token}` },
  });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

/** Everything measured against the running server (its process id `pid`). */
async function measure(pid: number, base: string, seeded: Seeded, form: ReturnType<typeof multipart>) {
  const home = `${base}/api/v1/timelines/home?limit=20`;
  log("home timeline alone…");
  await timeline(home, seeded.readerToken, 3);
  const alone = await timeline(home, seeded.readerToken, 10);

  log(`${ALONE} uploads one at a time…`);
  await upload(base, seeded.posterToken, form);
  const cpuBefore = cpuMs(pid);
  const threadsBefore = cpuMsByThread(pid);
  // The benchmark shares the cores with the server: what sending an upload costs it.
  const clientBefore = process.cpuUsage();
  const sequential: number[] = [];
  for (let i = 0; i < ALONE; i++) sequential.push((await upload(base, seeded.posterToken, form)).processed);
  const cpuPerUpload = (cpuMs(pid) - cpuBefore) / ALONE;
  const client = process.cpuUsage(clientBefore);
  const clientPerUpload = (client.user + client.system) / 1000 / ALONE;
  const byThread = [...cpuMsByThread(pid)]
    .map(([name, ms]) => [name, (ms - (threadsBefore.get(name) ?? 0)) / ALONE] as const)
    .filter(([, ms]) => ms >= 1)
    .sort((a, b) => b[1] - a[1]);
  // Threads that ended during the uploads count in the process's total only.
  const ended = cpuPerUpload - byThread.reduce((sum, [, ms]) => sum + ms, 0);

  log(`${ROUNDS} rounds of ${CONCURRENT} concurrent uploads, the home timeline alongside…`);
  const times: { answered: number; processed: number }[] = [];
  let finished = false;
  const uploading = (async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const batch = Array.from({ length: CONCURRENT }, () => upload(base, seeded.posterToken, form));
      times.push(...(await Promise.all(batch)));
    }
  })().finally(() => {
    finished = true;
  });
  // The timeline is measured in 2 s slices while the uploads last; the worst slice is reported.
  const runs = [];
  do runs.push(await timeline(home, seeded.readerToken, 2));
  while (!finished);
  await uploading;
  const alongside = runs.reduce((worst, r) => (r.p99 > worst.p99 ? r : worst));
  return { alone, sequential, cpuPerUpload, clientPerUpload, byThread, ended, times, alongside };
}

async function main() {
  await configureLogging("warn");
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-media-"));
  const port = await freePort();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dataDir, "rookery.sqlite")}`;
  const env = { ...serverEnv(port, dataDir, databaseUrl), RATE_LIMITS: "off" };
  let server: ChildProcess | null = null;
  try {
    log("seeding…");
    const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
    const seeded = await seed(rt, log);
    await rt.close();
    log("making a 4 MB JPEG…");
    const { jpeg, width, height } = await photo();
    const form = multipart(jpeg);
    const what = `${(jpeg.byteLength / 1024 / 1024).toFixed(2)} MiB ${width}×${height} JPEG`;
    log(what);

    server = await startRookery(env, port);
    // The benchmark's client (uploads and home-timeline load) is held to the last core, as the
    // timeline benchmark's load generator is: on a real server, clients are elsewhere.
    const { alone, sequential, cpuPerUpload, clientPerUpload, byThread, ended, times, alongside } = await onLastCore(
      () => measure(server!.pid!, `http://127.0.0.1:${port}`, seeded, form),
    );
    const rss = Math.round(memoryKb(server.pid!, "VmHWM") / 1024);

    const ms = (n: number) => `${Math.round(n)} ms`;
    console.log(`Media benchmark (${databaseUrl.startsWith("sqlite") ? "sqlite" : "postgres"})`);
    console.log(
      `  one upload at a time: ${ms(percentile(sequential, 50))} (p50), server CPU ${ms(cpuPerUpload)} per upload`,
    );
    const threads = byThread.map(([name, t]) => `${name} ${ms(t)}`);
    if (ended >= 1) threads.push(`threads that ended ${ms(ended)}`);
    console.log(`    by thread: ${threads.join(", ")}; the benchmark's own CPU ${ms(clientPerUpload)} per upload sent`);
    const answered = times.map((t) => t.answered);
    const processed = times.map((t) => t.processed);
    console.log(
      `  uploads: ${times.length} (${ROUNDS} × ${CONCURRENT} at once), ${what}: answered p50 ${ms(percentile(answered, 50))}, p99 ${ms(percentile(answered, 99))}, max ${ms(Math.max(...answered))} (target: p99 under 1,000 ms)`,
    );
    console.log(
      `    processed p50 ${ms(percentile(processed, 50))}, p99 ${ms(percentile(processed, 99))}, max ${ms(Math.max(...processed))} after the request (target: each within 5,000 ms)`,
    );
    console.log(`  home timeline alone: ${alone.rps} requests/s, p50 ${alone.p50} ms, p99 ${alone.p99} ms`);
    console.log(
      `  home timeline during uploads (worst 2 s slice): ${alongside.rps} requests/s, p50 ${alongside.p50} ms, p99 ${alongside.p99} ms (target: p99 under 50 ms)`,
    );
    console.log(`  server peak RSS: ${rss} MiB (target: bounded; reported)`);
    const load = loadavg().map((l) => l.toFixed(1));
    console.log(`  load average at the end: ${load.join(", ")}`);
  } finally {
    await stopRookery(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

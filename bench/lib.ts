// What the benchmarks share: ports, waiting for a server, load with autocannon next to the bare
// node:http baseline, starting Rookery as its own process, and throwaway PostgreSQL databases.
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";

export const CONNECTIONS = 50;
export const DURATION = Number(process.env.BENCH_SECONDS ?? 20);
/** A directory: the server writes a CPU profile there (`--cpu-prof`). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

export const log = (line: string) => console.error(`  ${line}`);

const lastCore = availableParallelism() - 1;

/** Holds this process (every thread of it) to `cores` (`1`, `0-3`); false where that is not possible. */
export function pin(cores: string): boolean {
  if (lastCore < 1) return false;
  try {
    execFileSync("taskset", ["-a", "-p", "-c", cores, String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `fn` on the last core only. Only while it runs: a process started meanwhile would inherit
 * the one core, and the server sizes its web threads by the cores it may use.
 */
export async function onLastCore<T>(fn: () => Promise<T>): Promise<T> {
  const pinned = pin(String(lastCore));
  try {
    return await fn();
  } finally {
    if (pinned) pin(`0-${lastCore}`);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Until `url` answers 2xx, asking every `everyMs` for 30 s. */
export async function waitFor(url: string, everyMs = 100): Promise<void> {
  for (let i = 0; i < 30_000 / everyMs; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${url} did not answer`);
}

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function load(
  url: string,
  headers: Record<string, string> = {},
  { warmUp = true, duration = DURATION } = {},
): Promise<Load> {
  const r = await onLastCore(async () => {
    if (warmUp) await autocannon({ url, connections: CONNECTIONS, duration: 3, headers });
    return autocannon({ url, connections: CONNECTIONS, duration, headers });
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors + r.timeouts,
  };
}

/**
 * The home timeline on two servers in turns, a slice of the duration at a time, so that the
 * machine's changing speed weighs on both alike; the slices' figures are averaged.
 */
export async function alternate(
  urls: [string, string],
  headers: Record<string, string>,
  { duration = DURATION, warmUp = true } = {},
): Promise<[Load, Load]> {
  const slices = 4;
  const runs: [Load[], Load[]] = [[], []];
  for (let i = 0; i < slices; i++) {
    // Each goes first in every other turn: what the machine carries over from one slice to the next
    // then weighs on both alike.
    for (const side of i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) {
      runs[side].push(await load(urls[side], headers, { warmUp: warmUp && i === 0, duration: duration / slices }));
    }
    log(`turn ${i + 1}: ${runs[0][i].rps} / ${runs[1][i].rps} requests/s`);
  }
  const mean = (loads: Load[], pick: (l: Load) => number) =>
    Math.round((loads.reduce((sum, l) => sum + pick(l), 0) / loads.length) * 10) / 10;
  const combine = (loads: Load[]): Load => ({
    rps: Math.round(mean(loads, (l) => l.rps)),
    p50: mean(loads, (l) => l.p50),
    p99: mean(loads, (l) => l.p99),
    errors: loads.reduce((sum, l) => sum + l.errors, 0),
  });
  return [combine(runs[0]), combine(runs[1])];
}

export async function baseline(): Promise<Load> {
  const port = await freePort();
  const child = fork(join(import.meta.dirname, "hello.ts"), { env: { ...process.env, PORT: String(port) } });
  await new Promise((resolve) => child.once("message", resolve));
  try {
    return await load(`http://127.0.0.1:${port}/`);
  } finally {
    child.kill();
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** What every benchmark's server is started with: a fresh secret, quiet logs, on this port. */
export function serverEnv(port: number, dataDir: string, databaseUrl: string): Record<string, string> {
  return {
    LOCAL_DOMAIN: `127.0.0.1:${port}`,
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    LOG_LEVEL: "warn",
  };
}

/** A figure of /proc/PID/status in kB: resident memory (`VmRSS`) or its peak (`VmHWM`). */
export function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
}

/** CPU time (user and system, every thread) a process has used so far, in ms (/proc/PID/stat). */
export function cpuMs(pid: number): number {
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}
/** CPU time of each of a process's threads, in ms, summed by thread name (libvips, libuv-worker, V8Worker…). */
export function cpuMsByThread(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[-_]?\d+$/, "");
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return byName;
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux Node runs on. */
const CLOCK_TICKS = 100;

/**
 * The CPU time of each PostgreSQL backend connected to the current database of `client`, but its
 * own and those of `exclude` (the benchmark's other connections): the server's pool. The
 * difference of two readings is what the server made PostgreSQL do.
 */
export async function backendCpuMs(client: pg.Client, exclude: number[] = []): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and pid <> all($1)",
    [exclude],
  );
  const byPid = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      byPid.set(pid, cpuMs(pid));
    } catch {
      // Gone since.
    }
  }
  return byPid;
}

/** The CPU time spent between two readings; a backend that began in between counts in full. */
export function backendCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

/**
 * Starts `rookery serve` (or `web`, or `worker`) with `env` as its own process, once it answers: on
 * `port`, or for a worker, which listens on none, on its metrics port (METRICS_PORT, which it needs).
 */
export async function startRookery(
  env: Record<string, string>,
  port: number,
  command: "serve" | "web" | "worker" = "serve",
): Promise<ChildProcess> {
  // Not this process's id tag (src/domain/ids.ts), which it set for itself on loading ids.ts and
  // which its children would inherit: processes of one tag make the same ids in the same millisecond.
  const { ROOKERY_ID_TAG_BASE: _, ...inherited } = process.env;
  const child = fork(join(import.meta.dirname, "../src/main.ts"), [command], {
    env: { ...inherited, ...env, PORT: String(port) },
    stdio: "inherit",
    execArgv: PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  });
  await waitFor(
    command === "worker" ? `http://127.0.0.1:${env.METRICS_PORT}/metrics` : `http://127.0.0.1:${port}/api/v2/instance`,
  );
  return child;
}

/** Stops a server started by startRookery (SIGTERM, as an operator would), once it has exited. */
export async function stopRookery(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
}

export async function postgresDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `rookery_bench_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** One series of a Prometheus text page: its labels as written (`{thread="main",…}`) and its value. */
export interface Sample {
  labels: string;
  value: number;
}

/** The series of `name` on a server's metrics page (METRICS_PORT). */
export async function scrape(port: number): Promise<(name: string) => Sample[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const lines = text.split("\n").filter((l) => l && !l.startsWith("#"));
  return (name) =>
    lines.flatMap((line) => {
      const m = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/i.exec(line);
      return m && m[1] === name ? [{ labels: m[2] ?? "", value: Number(m[3]) }] : [];
    });
}

/** The command line's `--name value` options of a benchmark, with the environment's as defaults. */
export function benchOptions<T extends Record<string, string | undefined>>(defaults: T): { [K in keyof T]: string } {
  const args = process.argv.slice(2);
  const out: Record<string, string | undefined> = { ...defaults };
  for (let i = 0; i < args.length; i++) {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(args[i]);
    if (!m || !(m[1] in defaults))
      throw new Error(`unknown option ${args[i]} (known: ${Object.keys(defaults).join(", ")})`);
    out[m[1]] = m[2] ?? args[++i];
  }
  return out as { [K in keyof T]: string };
}

// Start-up (`npm run bench:startup`): from a fresh clone of this repository with an empty npm cache,
// how long `npm ci && npm start` takes to serve its first request; then how long `npm start` alone
// takes on the data directory that first start left. Default configuration (SQLite).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, log, waitFor } from "./lib.ts";

const RUNS = Number(process.env.BENCH_STARTS ?? 5);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): ChildProcess {
  // A process group of its own, so that stopping reaches the server under npm and its shell.
  return spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? 1)));

async function stop(child: ChildProcess): Promise<void> {
  const done = exited(child);
  process.kill(-child.pid!, "SIGTERM");
  await done;
  // The server (npm's grandchild) has closed its port once nothing answers there.
  for (let i = 0; i < 100; i++) {
    if (
      !(await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      ))
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the server did not stop");
}

/** `npm start` until it answers; returns the milliseconds and the running server. */
async function start(dir: string, env: Record<string, string>): Promise<[number, ChildProcess]> {
  const started = performance.now();
  const child = run("npm", ["start"], dir, env);
  await waitFor(`http://127.0.0.1:${env.PORT}/api/v2/instance`, 10);
  return [performance.now() - started, child];
}

const port = String(await freePort());
const work = mkdtempSync(join(tmpdir(), "rookery-startup-"));
try {
  const clone = join(work, "rookery");
  const cache = join(work, "npm-cache");
  execFileSync("git", ["clone", "--quiet", join(import.meta.dirname, ".."), clone]);
  const env = { PORT: port, LOCAL_DOMAIN: `127.0.0.1:${port}`, DATA_DIR: join(work, "data"), LOG_LEVEL: "warn" };

  log("npm ci with an empty cache…");
  const began = performance.now();
  if ((await exited(run("npm", ["ci", "--no-audit", "--no-fund"], clone, { npm_config_cache: cache }))) !== 0) {
    throw new Error("npm ci failed");
  }
  const installed = performance.now() - began;
  const [firstStart, first] = await start(clone, env);
  await stop(first);
  log(`npm ci ${seconds(installed)}, first start ${seconds(firstStart)}`);

  const again: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [ms, server] = await start(clone, env);
    again.push(ms);
    await stop(server);
  }
  again.sort((a, b) => a - b);
  console.log(
    [
      "Start-up, default configuration (SQLite), until GET /api/v2/instance answers",
      "",
      "| step | time |",
      "|---|---|",
      `| fresh clone: npm ci, empty npm cache | ${seconds(installed)} |`,
      `| fresh clone: first npm start (creates the database) | ${seconds(firstStart)} |`,
      `| fresh clone: npm ci && npm start | ${seconds(installed + firstStart)} |`,
      `| npm start on the existing data directory (median of ${RUNS}, slowest) | ${seconds(again[Math.floor(RUNS / 2)])}, ${seconds(again[RUNS - 1])} |`,
    ].join("\n"),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

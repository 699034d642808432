// What the Prometheus metrics cost (`npm run bench:metrics`, under a minute): the home timeline
// (GET /api/v1/timelines/home?limit=20, 50 connections) on two servers on one SQLite database, one
// with METRICS_PORT set and one without, in turns, a few seconds at a time, so that the machine's
// changing speed weighs on both alike. Rate limits are off on both, to leave only the metrics'
// cost. BENCH_SECONDS sets each server's total (default 20). The request hook's own cost is measured
// in this process first, free of the noise of a shared machine. BENCH_CONTROL=1 runs the second
// server without metrics too: the difference then is the machine's noise alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { loadConfig } from "../src/config.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import {
  alternate,
  CONNECTIONS,
  cpuMs,
  freePort,
  type Load,
  load,
  log,
  serverEnv,
  startRookery,
  stopRookery,
  waitFor,
} from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const POSTS = 40;

await configureLogging("warn");

/**
 * What the metrics add to one request, measured in this process where nothing else interferes: the
 * app's request hook on a matched route, a million times.
 */
async function hookCost(): Promise<number> {
  const { createMetrics } = await import("../src/metrics/metrics.ts");
  const metrics = createMetrics({ dialect: "sqlite" } as Runtime, {
    usage: () => ({ total: 1, idle: 1, inUse: 0, waiting: 0 }),
    waits: { observe: null, inUse: 0 },
  });
  const app = new Hono();
  let ns = 0;
  app.get("/api/v1/timelines/home", (c) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 1_000_000; i++) metrics.request(c, 0.003);
    ns = Number(process.hrtime.bigint() - started) / 1_000_000;
    return c.text("");
  });
  await app.request("/api/v1/timelines/home");
  metrics.close();
  return Math.round(ns) / 1000;
}
const hookUs = await hookCost();
log(`the request hook: ${hookUs} µs a request`);
const started = Date.now();
const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-metrics-"));
const [plainPort, measuredPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
const env = { ...serverEnv(plainPort, dataDir, `sqlite:${join(dataDir, "bench.sqlite")}`), RATE_LIMITS: "off" };

// A reader following an author with a page of statuses: made directly, then posted through the API.
const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
const app = await createApplication(rt, {
  name: "bench",
  redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
  scopes: ["read", "write", "follow"],
});
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};
for (const name of ["author", "reader"]) {
  const user = await createLocalUser(rt, {
    username: name,
    email: `${name}@bench.test`,
    password: "benchmark password",
  });
  ids[name] = user.accountId;
  tokens[name] = (
    await issueToken(rt, { applicationId: app.id, userId: user.userId, scopes: ["read", "write", "follow"] })
  ).token;
}
await rt.close();

const plain = await startRookery(env, plainPort);
const control = process.env.BENCH_CONTROL === "1";
const measured = await startRookery(control ? env : { ...env, METRICS_PORT: String(metricsPort) }, measuredPort);
try {
  const base = `http://127.0.0.1:${plainPort}`;
  const as = (who: string) => ({ authorization: `Bearer ${tokens[who]}`, "content-type": "application/json" });
  await fetch(`${base}/api/v1/accounts/${ids.author}/follow`, { method: "POST", headers: as("reader") });
  for (let i = 0; i < POSTS; i++) {
    const res = await fetch(`${base}/api/v1/statuses`, {
      method: "POST",
      headers: as("author"),
      body: JSON.stringify({ status: `Status ${i} with a #tag and a link https://example.com/${i}` }),
    });
    if (res.status !== 200) throw new Error(`post: ${res.status} ${await res.text()}`);
  }
  const path = "/api/v1/timelines/home?limit=20";
  const reader = { authorization: `Bearer ${tokens.reader}` };
  for (;;) {
    const page = (await (await fetch(base + path, { headers: as("reader") })).json()) as unknown[];
    if (page.length === 20) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // The metrics listener starts once the web threads have.
  if (!control) await waitFor(`http://127.0.0.1:${metricsPort}/metrics`);
  log(`seeded and started in ${Math.round((Date.now() - started) / 1000)} s; the home timeline, in turns…`);

  // Warmed up first, so that the CPU time measured is the requests' alone.
  for (const port of [plainPort, measuredPort])
    await load(`http://127.0.0.1:${port}${path}`, reader, { duration: 3, warmUp: false });
  const cpuBefore = [cpuMs(plain.pid!), cpuMs(measured.pid!)];
  const [off, on] = await alternate([base + path, `http://127.0.0.1:${measuredPort}${path}`], reader, {
    duration: SECONDS,
    warmUp: false,
  });
  // CPU time per request: what the metrics add to each, less swayed than the throughput by what
  // else the machine runs meanwhile. Each server is idle while the other one is measured.
  const perRequest = (load: Load, i: number, pid: number) =>
    Math.round(((cpuMs(pid) - cpuBefore[i]!) / (load.rps * SECONDS)) * 1000) / 1000;
  const cpu = [perRequest(off, 0, plain.pid!), perRequest(on, 1, measured.pid!)];
  const cost = Math.round(((off.rps - on.rps) / off.rps) * 1000) / 10;
  const cpuCost = Math.round(((cpu[1]! - cpu[0]!) / cpu[0]!) * 1000) / 10;
  console.log(
    [
      `Home timeline, ${CONNECTIONS} connections, ${SECONDS} s per server in turns (SQLite, rate limits off)`,
      "",
      "| metrics | requests/s | CPU ms per request | p50 ms | p99 ms | errors |",
      "|---|---|---|---|---|---|",
      `| off | ${off.rps} | ${cpu[0]} | ${off.p50} | ${off.p99} | ${off.errors} |`,
      `| ${control ? "off (control)" : "on (METRICS_PORT)"} | ${on.rps} | ${cpu[1]} | ${on.p50} | ${on.p99} | ${on.errors} |`,
      "",
      `Cost of the metrics: ${cost}% of the throughput, ${cpuCost}% more CPU per request; the request hook`,
      `alone takes ${hookUs} µs (${Math.round((hookUs / 1000 / cpu[0]!) * 10000) / 100}% of a request's CPU time).`,
      `Total ${Math.round((Date.now() - started) / 1000)} s.`,
    ].join("\n"),
  );
} finally {
  await Promise.all([stopRookery(plain), stopRookery(measured)]);
  rmSync(dataDir, { recursive: true, force: true });
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  baseline,
  CONNECTIONS,
  DURATION,
  freePort,
  type Load,
  load,
  log,
  postgresDatabase,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";

const PATHS = ["/api/v1/instance", "/api/v2/instance", "/nodeinfo/2.0", "/api/v1/custom_emojis"];
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/postgres";

async function measure(label: string, databaseUrl: string): Promise<[string, Load][]> {
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-"));
  const port = await freePort();
  const server = await startRookery(serverEnv(port, dataDir, databaseUrl.replace("{dir}", dataDir)), port);
  try {
    const out: [string, Load][] = [];
    for (const path of PATHS) {
      const result = await load(`http://127.0.0.1:${port}${path}`);
      log(`${label} ${path}: ${result.rps} requests/s, p99 ${result.p99} ms`);
      out.push([path, result]);
    }
    return out;
  } finally {
    await stopRookery(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

log("baseline: node:http hello world…");
const hello = await baseline();
log(`hello world: ${hello.rps} requests/s`);
const rows: string[] = [];
const add = (label: string, results: [string, Load][]) => {
  for (const [path, r] of results) {
    const share = Math.round((r.rps / hello.rps) * 100);
    rows.push(`| ${label} | ${path} | ${r.rps} | ${share}% | ${r.p50} | ${r.p99} | ${r.errors} |`);
  }
};
if (process.env.BENCH_ONLY !== "postgres") add("SQLite", await measure("sqlite", "sqlite:{dir}/bench.sqlite"));
if (process.env.BENCH_ONLY !== "sqlite") {
  const db = await postgresDatabase(PG_ADMIN);
  if (!db) log(`PostgreSQL not reachable at ${PG_ADMIN}: skipped`);
  else {
    try {
      add("PostgreSQL", await measure("postgres", db.url));
    } finally {
      await db.drop();
    }
  }
}
console.log(
  [
    `Caller-independent answers, ${CONNECTIONS} connections, ${DURATION} s each`,
    "",
    "| database | path | requests/s | of hello world | p50 ms | p99 ms | errors |",
    "|---|---|---|---|---|---|---|",
    `| — | node:http hello world | ${hello.rps} | 100% | ${hello.p50} | ${hello.p99} | ${hello.errors} |`,
    ...rows,
  ].join("\n"),
);

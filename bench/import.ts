// The import of a follows file of 10,000 local accounts, through /settings/import as a person uploads
// it, on a `rookery serve` process (web and worker in one, as a small server runs): how long the
// jobs take to work through it, and the latency of the importer's home timeline meanwhile (four
// clients asking one after the other, as apps do). Accounts go in directly, in batches.
// `npx node bench/import.ts` (SQLite); BENCH_ONLY=postgres for PostgreSQL.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { idAt, newId } from "../src/domain/ids.ts";
import { hashPassword } from "../src/domain/secrets.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { localAccountRow, userRow } from "../src/services/accounts/account_row.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { rebuildHomeFeed } from "../src/services/feeds/maintenance.ts";
import { cpuMs, freePort, log, percentile, postgresDatabase, serverEnv, startRookery, stopRookery } from "./lib.ts";

const ACCOUNTS = 10_000;
/** Accounts the importer follows already, with posts in its home feed (the file names them again). */
const AUTHORS = 40;
const POSTS_PER_AUTHOR = 20;
const CLIENTS = 4;
const PASSWORD = "benchmark password";
const BATCH = 500;

async function insertAll(rt: Runtime, table: string, rows: unknown[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await rt.db
      .insertInto(table as any)
      .values(rows.slice(i, i + BATCH) as any)
      .execute();
  }
}

/** 10,000 accounts and the importer, whose home feed holds the posts of the first AUTHORS; its token. */
async function seed(rt: Runtime): Promise<{ token: string; csv: string }> {
  const passwordHash = await hashPassword(PASSWORD);
  const names = ["importer", ...Array.from({ length: ACCOUNTS }, (_, i) => `person${i}`)];
  const ids = new Map(names.map((n) => [n, newId()]));
  await insertAll(
    rt,
    "accounts",
    names.map((n) => localAccountRow(rt.config, n, { id: ids.get(n)!, display_name: n })),
  );
  await insertAll(
    rt,
    "users",
    names.map((n) =>
      userRow({ id: newId(), account_id: ids.get(n)!, email: `${n}@bench.test`, password_hash: passwordHash }),
    ),
  );
  await insertAll(
    rt,
    "account_stats",
    names.map((n) => ({ account_id: ids.get(n)!, last_status_at: null })),
  );
  const now = Date.now();
  const statuses = [];
  for (let a = 0; a < AUTHORS; a++) {
    for (let p = 0; p < POSTS_PER_AUTHOR; p++) {
      const at = new Date(now - (a * POSTS_PER_AUTHOR + p) * 60_000);
      const id = idAt(at);
      statuses.push({
        id,
        uri: `${rt.config.origin}/users/person${a}/statuses/${id}`,
        url: `${rt.config.origin}/@person${a}/${id}`,
        account_id: ids.get(`person${a}`)!,
        local: true,
        visibility: "public",
        text: `Post ${p} by person${a}`,
        content: `<p>Post ${p} by person${a}</p>`,
        conversation_id: id,
        created_at: at,
        updated_at: at,
      });
    }
  }
  await insertAll(rt, "statuses", statuses);
  await insertAll(
    rt,
    "status_stats",
    statuses.map((s) => ({ status_id: s.id })),
  );
  const importer = ids.get("importer")!;
  await insertAll(
    rt,
    "follows",
    Array.from({ length: AUTHORS }, (_, a) => ({
      id: newId(),
      account_id: importer,
      target_account_id: ids.get(`person${a}`)!,
      show_reblogs: true,
      notify: false,
      languages: null,
      uri: null,
      created_at: new Date(),
    })),
  );
  await rebuildHomeFeed(rt, importer);
  const app = await createApplication(rt, {
    name: "Benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read"],
  });
  const user = await rt.db
    .selectFrom("users")
    .select("id")
    .where("account_id", "=", importer)
    .executeTakeFirstOrThrow();
  const { token } = await issueToken(rt, { applicationId: app.id, userId: user.id, scopes: ["read"] });
  const host = rt.config.localDomain;
  const csv =
    "Account address,Show boosts,Notify on new posts,Languages\n" +
    names
      .slice(1)
      .map((n) => `${n}@${host},true,false,\n`)
      .join("");
  return { token, csv };
}

/** A browser's cookies, kept across requests. */
class Cookies {
  readonly jar = new Map<string, string>();
  header = () => [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      this.jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
}

const tokenIn = (html: string) => /name="authenticity_token" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** Signs in through the sign-in page and uploads the file through the import page. */
async function upload(base: string, csv: string): Promise<void> {
  const cookies = new Cookies();
  const signIn = await fetch(`${base}/auth/sign_in`);
  cookies.keep(signIn);
  const signedIn = await fetch(`${base}/auth/sign_in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookies.header() },
    body: new URLSearchParams({
      authenticity_token: tokenIn(await signIn.text()),
      email: "importer@bench.test",
      password: PASSWORD,
    }),
  });
  cookies.keep(signedIn);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const page = await fetch(`${base}/settings/import`, { headers: { cookie: cookies.header() } });
  const form = new FormData();
  form.set("authenticity_token", tokenIn(await page.text()));
  form.set("type", "following");
  form.set("mode", "merge");
  form.set("data", new Blob([csv], { type: "text/csv" }), "following_accounts.csv");
  const res = await fetch(`${base}/settings/import`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookies.header() },
    body: form,
  });
  if (res.status !== 303) throw new Error(`the upload answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

async function measure(label: string, databaseUrl: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-"));
  const port = await freePort();
  // The clients ask far more often than Mastodon's limits allow one token.
  const limits = Object.fromEntries(
    ["PER_TOKEN", "PER_ACCOUNT", "PER_ADDRESS"].map((n) => [`RATE_LIMIT_${n}`, "1000000"]),
  );
  const env = { ...serverEnv(port, dataDir, databaseUrl.replace("{dir}", dataDir)), ...limits };
  const config = loadConfig(env);
  const rt = await createRuntime(config);
  let server = null;
  try {
    const started = performance.now();
    const { token, csv } = await seed(rt);
    log(`${label}: seeded ${ACCOUNTS} accounts in ${Math.round(performance.now() - started)} ms`);
    server = await startRookery(env, port);
    const base = `http://127.0.0.1:${port}`;
    const latencies: number[] = [];
    let importing = true;
    const client = async () => {
      while (importing) {
        const t = performance.now();
        const res = await fetch(`${base}/api/v1/timelines/home?limit=20`, {
          headers: { authorization: `Bearer ${token}` },
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`home timeline: ${res.status}`);
        latencies.push(performance.now() - t);
      }
    };
    const t0 = performance.now();
    const cpu0 = cpuMs(server.pid!);
    await upload(base, csv);
    const uploaded = performance.now() - t0;
    const clients = Promise.all(Array.from({ length: CLIENTS }, client));
    // A failing client ends the measurement (and the server, in `finally`).
    clients.catch(() => {
      importing = false;
    });
    let state = { state: "running", processed: 0, failed: 0 };
    while (state.state !== "finished" && importing) {
      await new Promise((r) => setTimeout(r, 250));
      const row = await rt.db
        .selectFrom("imports")
        .select(["state", "processed_rows", "failed_rows"])
        .executeTakeFirstOrThrow();
      state = { state: row.state, processed: row.processed_rows, failed: row.failed_rows };
    }
    const duration = performance.now() - t0;
    // The server's CPU time tells what the work costs whatever else the machine runs (the clients'
    // requests are in it too).
    const cpu = cpuMs(server.pid!) - cpu0;
    importing = false;
    await clients;
    const follows = await rt.db
      .selectFrom("follows")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    log(
      `${label}: upload answered in ${Math.round(uploaded)} ms; ${state.processed} rows (${state.failed} failed) imported in ` +
        `${(duration / 1000).toFixed(1)} s (server CPU ${(cpu / 1000).toFixed(1)} s, load average ${loadavg()[0].toFixed(1)}); ${follows.n} follows stored; home timeline meanwhile: ${latencies.length} requests, ` +
        `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
  } finally {
    await stopRookery(server);
    await rt.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_ONLY !== "postgres") await measure("SQLite", "sqlite:{dir}/bench.sqlite");
if (process.env.BENCH_ONLY === "postgres") {
  const db = await postgresDatabase(process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/postgres");
  if (!db) log("PostgreSQL is not reachable: skipped");
  else {
    try {
      await measure("PostgreSQL", db.url);
    } finally {
      await db.drop();
    }
  }
}

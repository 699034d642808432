// A real Rookery process (`rookery serve`, or another of its server commands) to kill and start
// again, on a database of its own (a SQLite file, or a PostgreSQL schema), with a connection of
// this process to seed it and watch it.
// Used by the crash tests and by the fault benchmark (bench/faults.ts).
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { newId } from "../src/domain/ids.ts";
import { hashPassword } from "../src/domain/secrets.ts";
import type { Runtime } from "../src/runtime.ts";
import { localAccountRow, userRow } from "../src/services/accounts/account_row.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { createRuntimeRetrying } from "./rig.ts";

const MAIN = join(import.meta.dirname, "../src/main.ts");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export interface ProcessServer {
  url: string;
  /** This process's connection to the server's database. */
  rt: Runtime;
  /** PostgreSQL: what the server's connections are called in pg_stat_activity. */
  applicationName: string | null;
  /** Starts the process; resolves with the milliseconds until it answered (a worker: once started). */
  start(): Promise<number>;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** Whether the process is running. */
  alive(): boolean;
  close(): Promise<void>;
}

/** A server process on SQLite, or on a fresh schema of the PostgreSQL database `postgresUrl`. */
export async function processServer(
  postgresUrl: string | null,
  env: Record<string, string> = {},
  command: "serve" | "worker" = "serve",
): Promise<ProcessServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-process-"));
  const schema = postgresUrl ? `p_${randomBytes(6).toString("hex")}` : undefined;
  const applicationName = schema ? `rookery ${schema}` : null;
  let databaseUrl = `sqlite:${join(dataDir, "rookery.sqlite")}`;
  if (postgresUrl && schema) {
    await adminQuery(postgresUrl, `CREATE SCHEMA ${schema}`);
    const u = new URL(postgresUrl);
    u.searchParams.set("options", `-c search_path=${schema}`);
    u.searchParams.set("application_name", applicationName!);
    databaseUrl = u.toString();
  }
  const serverEnv: Record<string, string> = {
    LOCAL_DOMAIN: `127.0.0.1:${port}`,
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    REGISTRATIONS_MODE: "open",
    RATE_LIMITS: "off",
    WEB_THREADS: "1",
    // Killing it and cutting its connections is what the tests do: what it logs then is expected.
    LOG_LEVEL: "silent",
    ...env,
  };
  // Migrates the database before the server first starts (in the schema, on PostgreSQL).
  const rt = await createRuntimeRetrying(loadConfig(serverEnv), { schema, poolSize: 4, sqliteCheckpoints: false });
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;
  return {
    url,
    rt,
    applicationName,
    async start() {
      const started = Date.now();
      child = fork(MAIN, [command], {
        env: { ...process.env, ...serverEnv },
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      });
      // A worker answers no HTTP: started is all there is to wait for.
      if (command === "worker") return Date.now() - started;
      for (;;) {
        try {
          if ((await fetch(`${url}/api/v1/instance`)).ok) return Date.now() - started;
        } catch {
          // Not listening yet.
        }
        if (!alive()) throw new Error(`the server exited (${child.exitCode ?? child.signalCode})`);
        // Only a hang guard: a loaded machine may take long to start it.
        if (Date.now() - started > 180_000) throw new Error("the server did not answer within 3 minutes");
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async kill() {
      if (!child || !alive()) return;
      const gone = new Promise((r) => child!.once("exit", r));
      child.kill("SIGKILL");
      await gone;
    },
    alive,
    async close() {
      if (child && alive()) {
        const gone = new Promise((r) => child!.once("exit", r));
        child.kill("SIGTERM");
        await gone;
      }
      await rt.close();
      if (postgresUrl && schema) await adminQuery(postgresUrl, `DROP SCHEMA ${schema} CASCADE`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Seeded {
  posterId: string;
  posterToken: string;
  /** Tokens of the first few followers, to write with. */
  writerTokens: string[];
  followerIds: string[];
}

/**
 * A poster followed by `followers` local accounts, one in `subscriberEvery` of which asked to hear of
 * each post, and tokens for the first `writers` of them.
 */
export async function seedFollowers(
  rt: Runtime,
  followers: number,
  { writers = 4, subscriberEvery = 10 }: { writers?: number; subscriberEvery?: number } = {},
): Promise<Seeded> {
  const passwordHash = await hashPassword("process test password");
  const now = new Date();
  const names = ["poster", ...Array.from({ length: followers }, (_, i) => `follower${i}`)];
  const ids = names.map(() => newId());
  const batch = 500;
  for (let i = 0; i < names.length; i += batch) {
    const slice = names.slice(i, i + batch);
    await rt.db
      .insertInto("accounts")
      .values(slice.map((n, j) => localAccountRow(rt.config, n, { id: ids[i + j], created_at: now })))
      .execute();
    await rt.db
      .insertInto("account_stats")
      .values(slice.map((_, j) => ({ account_id: ids[i + j], last_status_at: null })))
      .execute();
    await rt.db
      .insertInto("users")
      .values(
        slice.map((n, j) =>
          userRow(
            { id: newId(), account_id: ids[i + j], email: `${n}@process.test`, password_hash: passwordHash },
            { created_at: now },
          ),
        ),
      )
      .execute();
  }
  const followerIds = ids.slice(1);
  for (let i = 0; i < followerIds.length; i += batch) {
    await rt.db
      .insertInto("follows")
      .values(
        followerIds.slice(i, i + batch).map((id, j) => ({
          id: newId(),
          account_id: id,
          target_account_id: ids[0],
          show_reblogs: true,
          notify: (i + j) % subscriberEvery === 0,
          languages: null,
          uri: null,
          created_at: now,
        })),
      )
      .execute();
  }
  const app = await createApplication(rt, {
    name: "Process tests",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write", "follow"],
  });
  const userIdOf = async (accountId: string) =>
    (await rt.db.selectFrom("users").select("id").where("account_id", "=", accountId).executeTakeFirstOrThrow()).id;
  const token = async (accountId: string) =>
    (
      await issueToken(rt, {
        applicationId: app.id,
        userId: await userIdOf(accountId),
        scopes: ["read", "write", "follow"],
      })
    ).token;
  const writerTokens: string[] = [];
  for (const id of followerIds.slice(0, writers)) writerTokens.push(await token(id));
  return { posterId: ids[0], posterToken: await token(ids[0]), writerTokens, followerIds };
}

// The test rig: a real Rookery server on a random loopback port with its own fresh database, and a
// small HTTP client to talk to it the way an app does. SQLite by default; when TEST_DATABASE_URL
// points at PostgreSQL, every server gets its own schema there, dropped on close.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { BUILT_IN_ROLES, type BuiltInRole } from "../src/domain/roles.ts";
import { createHttpServer } from "../src/http_server.ts";
import { startWorker } from "../src/jobs/worker.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../src/runtime.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { closeStreams } from "../src/streaming/hub.ts";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const dialectUnderTest = TEST_DATABASE_URL ? "postgres" : "sqlite";

export interface RequestOptions {
  token?: string | null;
  /** A JSON body. */
  json?: unknown;
  /** A form-encoded body (values may repeat with arrays). */
  form?: Record<string, string | string[]>;
  /** A multipart body. */
  multipart?: FormData;
  /** A raw body, with its content type in headers. */
  body?: string;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestUser {
  accountId: string;
  userId: string;
  username: string;
  token: string;
}

export interface UserOptions {
  role?: BuiltInRole;
  /** A role by id (a custom role), instead of `role`. */
  roleId?: string;
  scopes?: string[];
}

export interface TestServer {
  rt: Runtime;
  /** PostgreSQL only: the schema this server's tables live in. */
  schema: string | undefined;
  /** `http://127.0.0.1:port` */
  url: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  post<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  put<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  patch<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  delete<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** A confirmed, approved local user with a `read write follow push` token (made without HTTP). */
  user(username: string, options?: UserOptions): Promise<TestUser>;
  /** Whether this server runs the job worker (see ServerOptions). */
  worker: boolean;
  /** Waits until the job queue has nothing due and nothing running; rejects when jobs are due and no worker runs. */
  settle(): Promise<void>;
  /** Stops the runtime (database, worker, caches) and starts a new one on the same database, as a restart would. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Extra environment, as the server's configuration would read it. */
  env?: Record<string, string>;
  /** Run the job worker (default true). */
  worker?: boolean;
  /** Keep this server on SQLite even when the suite runs on PostgreSQL (a peer on the other database). */
  sqlite?: boolean;
}

/**
 * The tests make far more requests from one address and token than Mastodon's limits allow; the
 * limiter still runs on every request. test/rate_limits.test.ts sets the limits it tests.
 */
const RAISED_RATE_LIMITS = Object.fromEntries(
  ["PER_TOKEN", "PER_ACCOUNT", "PER_ADDRESS", "PAGING", "MEDIA", "DELETES"].map((n) => [`RATE_LIMIT_${n}`, "1000000"]),
);

export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  if (!process.env.TEST_LOG) await configureLogging("silent");
  let app: ReturnType<typeof createApp> | null = null;
  const http = createHttpServer(
    () => rt,
    () => app!,
  );
  // The test's client shares this process's event loop: after the loop was busy for a few seconds
  // (synchronous SQLite under load), the client sends on a kept-alive connection and the server's
  // keep-alive timer, due meanwhile, closes it unread before the request is read (ECONNRESET). Kept
  // alive a minute, a connection is reused long before that.
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const port = (http.address() as AddressInfo).port;
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-test-"));

  let schema: string | undefined;
  const databaseUrl = options.sqlite ? null : TEST_DATABASE_URL;
  if (databaseUrl) {
    schema = `t_${randomBytes(6).toString("hex")}`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
  }
  const config = loadConfig({
    LOCAL_DOMAIN: `127.0.0.1:${port}`,
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? `sqlite:${join(dataDir, "rookery.sqlite")}`,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    REGISTRATIONS_MODE: "open",
    LOG_LEVEL: "silent",
    ...RAISED_RATE_LIMITS,
    ...options.env,
  });
  let rt: Runtime;
  try {
    rt = await createRuntimeRetrying(config, { schema, poolSize: 4 });
  } catch (error) {
    // Leave nothing behind that would keep the test process alive.
    http.close();
    if (schema) await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  app = createApp(rt);
  if (options.worker !== false) await startWorker(rt);

  const url = `http://127.0.0.1:${port}`;
  let testApp: { id: string } | null = null;

  const request = async (method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> => {
    const target = new URL(path, url);
    for (const [k, v] of Object.entries(o.query ?? {})) {
      for (const item of Array.isArray(v) ? v : [v]) target.searchParams.append(k, item);
    }
    const headers = new Headers(o.headers);
    if (o.token) headers.set("authorization", `Bearer ${o.token}`);
    let body: BodyInit | undefined;
    if (o.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(o.json);
    } else if (o.form) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(o.form)) {
        for (const item of Array.isArray(v) ? v : [v]) form.append(k, item);
      }
      body = form;
    } else if (o.multipart) {
      body = o.multipart;
    } else if (o.body !== undefined) {
      body = o.body;
    }
    const res = await fetch(target, { method, headers, body, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  return {
    get rt() {
      return rt;
    },
    schema,
    url,
    worker: options.worker !== false,
    request,
    get: (p, o) => request("GET", p, o),
    post: (p, o) => request("POST", p, o),
    put: (p, o) => request("PUT", p, o),
    patch: (p, o) => request("PATCH", p, o),
    delete: (p, o) => request("DELETE", p, o),
    async user(username, o = {}) {
      testApp ??= await createApplication(rt, {
        name: "Rookery tests",
        redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
        scopes: ["read", "write", "follow", "push", "admin:read", "admin:write"],
      });
      const created = await createLocalUser(rt, {
        username,
        email: `${username}@example.test`,
        password: "correct horse battery staple",
        roleId: o.roleId ?? (o.role ? BUILT_IN_ROLES[o.role] : null),
      });
      const issued = await issueToken(rt, {
        applicationId: testApp.id,
        userId: created.userId,
        scopes: o.scopes ?? ["read", "write", "follow", "push"],
      });
      return { ...created, username, token: issued.token };
    },
    settle: () => rt.queue.idle(),
    async restart() {
      closeStreams(rt);
      await rt.close();
      rt = await createRuntime(config, { schema, poolSize: 4, migrate: false });
      app = createApp(rt);
      if (options.worker !== false) await startWorker(rt);
    },
    async close() {
      closeStreams(rt);
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await rt.close();
      if (schema) await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The migrator reads PostgreSQL's catalog of every schema, and another test file dropping its own
 * schema at that moment can make the read fail: such a start is tried again.
 */
export async function createRuntimeRetrying(
  config: ReturnType<typeof loadConfig>,
  options: RuntimeOptions,
): Promise<Runtime> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createRuntime(config, options);
    } catch (error) {
      if (!options.schema || attempt === 3 || !/does not exist/.test(String(error))) throw error;
    }
  }
}

/** Runs one statement on the PostgreSQL server of TEST_DATABASE_URL (creating and dropping schemas). */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

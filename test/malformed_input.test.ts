// The malformed-input probe: every route the router knows, sent a fixed set of malformed variants
// (deep nesting, non-scalars, huge strings, NUL bytes, bad ids, broken JSON, wrong content types, a
// lying Content-Length), with a token holding every scope and without one. Each must get a 4xx
// JSON error, or a normal answer where the input is merely ignored: never a 5xx, never a hang.
// New routes are covered as they are registered.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { knownRoutes } from "./known_routes.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let admin: TestUser;
let bob: TestUser;
let statusId: string;
let listId: string;
before(async () => {
  // No job worker: the probe's own posts need no fan-out, and the machine's cores go to requests.
  // No rate limits: they would answer thousands of requests in the handlers' place.
  server = await startServer({ worker: false, env: { RATE_LIMITS: "off" } });
  admin = await server.user("probe", {
    role: "owner",
    scopes: ["read", "write", "follow", "push", "profile", "admin:read", "admin:write"],
  });
  bob = await server.user("bob");
  statusId = (await server.post("/api/v1/statuses", { token: bob.token, json: { status: "Probe me" } })).body.id;
  listId = (await server.post("/api/v1/lists", { token: admin.token, json: { title: "Probed" } })).body.id;
});
after(() => server.close());

const TIME_LIMIT_MS = 15_000;
const DEPTH = 10_000;
// A request line or header past Node's 16 KB limit is refused before the app sees it.
const QUERY_DEPTH = 4_000;
const HUGE = "a".repeat(1024 * 1024);
const BAD_IDS = ["9223372036854775808", "-1", "abc", "%25", "%00"];
const NON_SCALAR = { x: [[1]] };

// Names that most routes read, for when the API reference is not at hand (and on top of it).
const COMMON_PARAMS = [
  "id",
  "ids",
  "account_id",
  "status",
  "status_ids",
  "media_ids",
  "poll",
  "visibility",
  "spoiler_text",
  "in_reply_to_id",
  "scheduled_at",
  "language",
  "limit",
  "max_id",
  "min_id",
  "since_id",
  "title",
  "context",
  "keywords_attributes",
  "expires_in",
  "choices",
  "comment",
  "category",
  "rule_ids",
  "forward",
  "display_name",
  "note",
  "fields_attributes",
  "source",
  "types",
  "exclude_types",
  "local",
  "remote",
  "only_media",
  "grant_type",
  "client_id",
  "client_secret",
  "redirect_uri",
  "redirect_uris",
  "scope",
  "scopes",
  "code",
  "token",
  "username",
  "password",
  "email",
  "agreement",
  "locale",
  "reason",
  "home",
  "notifications",
  "last_read_id",
  "timeline",
  "q",
  "policy",
];

const REFERENCE = "/work/shared/mastodon-api/openapi.json";

/** Parameter names by route (`/api/v1/statuses/{}`), from Mastodon's API reference when present. */
function referenceParams(): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  if (!existsSync(REFERENCE)) return byPath;
  const spec = JSON.parse(readFileSync(REFERENCE, "utf8"));
  const resolve = (schema: any): any =>
    schema?.$ref
      ? resolve(
          schema.$ref
            .split("/")
            .slice(1)
            .reduce((node: any, key: string) => node[key], spec),
        )
      : schema;
  const collect = (schema: any, into: Set<string>) => {
    const s = resolve(schema);
    if (!s || typeof s !== "object") return;
    for (const name of Object.keys(s.properties ?? {})) into.add(name);
    for (const part of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) collect(part, into);
  };
  for (const [path, operations] of Object.entries<any>(spec.paths)) {
    const names = new Set<string>();
    for (const operation of Object.values<any>(operations)) {
      for (const p of operation.parameters ?? []) {
        const param = resolve(p);
        if (param.in === "query" || param.in === "formData") names.add(param.name);
      }
      for (const content of Object.values<any>(operation.requestBody?.content ?? {})) collect(content.schema, names);
    }
    byPath.set(path.replace(/\{[^}]+\}/g, "{}"), names);
  }
  return byPath;
}

interface Variant {
  name: string;
  path: string;
  query?: string;
  contentType?: string;
  body?: string | Uint8Array;
}

const goodValue = (path: string, name: string): string => {
  if (name === "date") return "2026-01-01";
  if (name === "name" || name === "hashtag") return "cats";
  if (name.includes("account") || /\/accounts\/:id/.test(path)) return bob.accountId;
  if (/\/lists\/:id/.test(path)) return listId;
  return statusId;
};

const fill = (path: string, value?: string) =>
  path.replace(/:([a-z_]+)/g, (_, name: string) => value ?? goodValue(path, name));

function variants(method: string, path: string, names: string[]): Variant[] {
  const target = fill(path);
  const first = names[0];
  const form = (value: (name: string) => string) =>
    names.map((n) => `${encodeURIComponent(n)}=${encodeURIComponent(value(n))}`).join("&");
  const nonScalarForm = names.map((n) => `${encodeURIComponent(n)}[x][][]=1`).join("&");
  const json = (value: unknown) => JSON.stringify(Object.fromEntries(names.map((n) => [n, value])));
  const list: Variant[] = [
    { name: "deep query", path: target, query: `${first}${"[b]".repeat(QUERY_DEPTH)}=1` },
    { name: "non-scalar query", path: target, query: nonScalarForm },
    { name: "NUL in query", path: target, query: form(() => "a\0b") },
    { name: "NUL after the path", path: `${target}%00` },
  ];
  if (path.includes(":")) {
    for (const bad of BAD_IDS) list.push({ name: `path ${bad}`, path: fill(path, bad) });
  }
  if (method === "GET") return list;
  const deepArray = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
  const body = (name: string, contentType: string, content: string | Uint8Array) =>
    list.push({ name, path: target, contentType, body: content });
  const JSON_TYPE = "application/json";
  const FORM_TYPE = "application/x-www-form-urlencoded";
  body("deep JSON array", JSON_TYPE, deepArray);
  body("deep JSON array in a parameter", JSON_TYPE, `{"${first}":${deepArray}}`);
  body("deep form", FORM_TYPE, `${first}${"[b]".repeat(DEPTH)}=1`);
  body("non-scalar JSON", JSON_TYPE, json(NON_SCALAR));
  body("non-scalar form", FORM_TYPE, nonScalarForm);
  body("huge JSON strings", JSON_TYPE, JSON.stringify(Object.fromEntries(names.slice(0, 2).map((n) => [n, HUGE]))));
  body("NUL in JSON", JSON_TYPE, json("a\0b"));
  body(
    "NUL in form",
    FORM_TYPE,
    form(() => "a\0b"),
  );
  body(
    "big integers in JSON",
    JSON_TYPE,
    `{${names.map((n) => `${JSON.stringify(n)}:9223372036854775808`).join(",")}}`,
  );
  body("broken JSON", JSON_TYPE, `{"${first}":`);
  body("JSON sent as text", "text/plain", json("1"));
  body(
    "form sent as JSON",
    JSON_TYPE,
    form(() => "1"),
  );
  body(
    "multipart without a boundary",
    "multipart/form-data",
    form(() => "1"),
  );
  body("broken escapes in a form", FORM_TYPE, `${first}=%zz&%E0%A4%A=1`);
  body("invalid UTF-8", JSON_TYPE, new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
  return list;
}

interface Outcome {
  status: number;
  type: string;
  text: string;
}

/** One request on a connection of its own (a kept-alive one may be closed under it by the server). */
function send(method: string, v: Variant, token: string | null): Promise<Outcome> {
  const headers: Record<string, string | number> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (v.contentType) headers["content-type"] = v.contentType;
  const body = v.body === undefined ? undefined : Buffer.from(v.body);
  if (body) headers["content-length"] = body.byteLength;
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path: `${v.path}${v.query ? `?${v.query}` : ""}`, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            type: res.headers["content-type"] ?? "",
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.setTimeout(TIME_LIMIT_MS, () => req.destroy(new Error("no answer in time")));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Sends a request whose Content-Length is not the body's length, and closes its side after the
 * body: the first answer's status, or 0 when the server closed without one.
 */
function sendLying(method: string, path: string, token: string | null, declared: number, body: string) {
  const { port } = new URL(server.url);
  return new Promise<Outcome>((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer in time"));
    }, TIME_LIMIT_MS);
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => {
      received += chunk;
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      const type = /\r\ncontent-type: ([^\r]*)/i.exec(received)?.[1] ?? "";
      resolve({ status, type, text: received.slice(received.indexOf("\r\n\r\n") + 4) });
    });
    socket.on("error", reject);
    socket.end(
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
        (token ? `Authorization: Bearer ${token}\r\n` : "") +
        `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${body}`,
    );
  });
}

const API_PREFIXES = ["/api/", "/oauth/token", "/oauth/revoke", "/oauth/userinfo", "/.well-known/", "/nodeinfo/"];

/** What is wrong with an answer, if anything. */
function judge(path: string, outcome: Outcome): string | null {
  if (outcome.status >= 500) return `${outcome.status} ${outcome.text.slice(0, 160)}`;
  // A rate limit would answer in the handlers' place and hide what they do.
  if (outcome.status === 429) return "429: the probe must run without rate limits";
  // Node itself refuses what it cannot parse as HTTP/1.1 (a request line too long, bytes past the
  // declared body, a body that ends early) before the app sees it: a bare status, nothing to judge.
  if (outcome.type === "" && outcome.text === "" && [400, 414, 431].includes(outcome.status)) return null;
  if (outcome.status >= 400 && API_PREFIXES.some((p) => path.startsWith(p))) {
    if (!outcome.type.includes("json")) return `${outcome.status} without a JSON body`;
    const body = JSON.parse(outcome.text);
    if (typeof body.error !== "string") return `${outcome.status} without an error: ${outcome.text.slice(0, 160)}`;
  }
  return null;
}

/** Runs `tasks` with at most `width` at a time. */
async function pool(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

test("no route answers malformed input with a 5xx or a hang, with a token or without", async (t) => {
  const routes = knownRoutes(server.rt);
  assert.ok(routes.size > 150, `only ${routes.size} routes`);
  const reference = referenceParams();
  const failures: string[] = [];
  let sent = 0;
  const check = async (what: string, path: string, request: () => Promise<Outcome>) => {
    sent++;
    try {
      const wrong = judge(path, await request());
      if (wrong) failures.push(`${what}: ${wrong}`);
    } catch (error) {
      failures.push(`${what}: ${String(error)} ${String((error as Error).cause ?? "")}`);
    }
  };
  const tasks: (() => Promise<void>)[] = [];
  for (const [key, { method, path }] of routes) {
    const names = [...new Set([...(reference.get(path.replace(/:[a-z_]+/g, "{}")) ?? []), ...COMMON_PARAMS])];
    const all = variants(method, path, names);
    const target = fill(path);
    const lying = (declared: number, body: string) => () => sendLying(method, target, admin.token, declared, body);
    for (const v of all) tasks.push(() => check(`${key} [${v.name}]`, path, () => send(method, v, admin.token)));
    if (method !== "GET") {
      tasks.push(() => check(`${key} [Content-Length larger than the body]`, path, lying(200, '{"a":1}')));
      tasks.push(() => check(`${key} [Content-Length smaller than the body]`, path, lying(3, '{"status":"more"}')));
    }
    // Without a token, a route that needs one answers 401 before it reads any input: the variants
    // matter for the routes open to everyone.
    tasks.push(async () => {
      let open = false;
      await check(`${key} [no token]`, path, async () => {
        const plain = await send(method, { name: "plain", path: target }, null);
        open = plain.status !== 401;
        return plain;
      });
      if (!open) return;
      for (const v of all) await check(`${key} [${v.name}, no token]`, path, () => send(method, v, null));
    });
  }
  const started = performance.now();
  await pool(tasks, 6);
  t.diagnostic(`${sent} requests in ${Math.round(performance.now() - started)} ms`);

  const alive = await server.get("/api/v1/accounts/verify_credentials", { token: admin.token });
  assert.equal(alive.status, 200);
  assert.equal(alive.body.username, "probe");
  assert.deepEqual(failures, []);
});

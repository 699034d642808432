// The API's rate limits: X-RateLimit-* headers, 429 past a limit, what is counted against whom,
// configuration, and counters shared by two runtimes on one database (and on one Redis).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createApp } from "../src/app.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { startServer, type TestResponse, type TestServer, type TestUser } from "./rig.ts";

const LIMITS = {
  RATE_LIMIT_PER_TOKEN: "6",
  RATE_LIMIT_PER_ACCOUNT: "9",
  RATE_LIMIT_PER_ADDRESS: "3",
  RATE_LIMIT_PAGING: "2",
  RATE_LIMIT_MEDIA: "1",
  RATE_LIMIT_DELETES: "2",
};

let server: TestServer;
before(async () => {
  server = await startServer({ env: LIMITS });
});
after(() => server.close());

const limitOf = (res: TestResponse) => [
  res.status,
  res.headers.get("x-ratelimit-limit"),
  res.headers.get("x-ratelimit-remaining"),
];

/** Another token of the same user. */
async function secondToken(user: TestUser): Promise<string> {
  const app = await server.rt.db.selectFrom("oauth_applications").select("id").executeTakeFirstOrThrow();
  const issued = await issueToken(server.rt, { applicationId: app.id, userId: user.userId, scopes: ["read", "write"] });
  return issued.token;
}

const FIVE_MINUTES = 300_000;

/**
 * Waits, when a five-minute window (which the 15- and 30-minute ones end with) ends within 10 s,
 * until the next one begins, so that no count under test is cut in two.
 */
async function clearOfWindowEnd(): Promise<void> {
  const left = FIVE_MINUTES - (Date.now() % FIVE_MINUTES);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
}

test("headers: the limit, what remains of it, and the end of the five-minute window", async () => {
  await clearOfWindowEnd();
  const user = await server.user("headers");
  const before = Date.now();
  const res = await server.get("/api/v1/timelines/home", { token: user.token });
  const after = Date.now();
  assert.deepEqual(limitOf(res), [200, "6", "5"]);
  const reset = res.headers.get("x-ratelimit-reset")!;
  assert.match(reset, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  // Windows are aligned to the epoch, as rack-attack's are.
  const ends = [before, after].map((t) => t - (t % FIVE_MINUTES) + FIVE_MINUTES);
  assert.ok(ends.includes(Date.parse(reset)), `${reset} is not a window's end`);
  assert.equal(res.headers.get("access-control-expose-headers")?.includes("X-RateLimit-Remaining"), true);

  const remaining: (string | null)[] = [];
  for (let i = 0; i < 5; i++) {
    remaining.push(
      (await server.get("/api/v1/accounts/verify_credentials", { token: user.token })).headers.get(
        "x-ratelimit-remaining",
      ),
    );
  }
  assert.deepEqual(remaining, ["4", "3", "2", "1", "0"]);

  const refused = await server.get("/api/v1/timelines/home", { token: user.token });
  assert.deepEqual(limitOf(refused), [429, "6", "0"]);
  assert.deepEqual(refused.body, { error: "Too many requests" });
  assert.equal(Date.parse(refused.headers.get("x-ratelimit-reset")!), Date.parse(reset));
  assert.equal(refused.headers.get("access-control-allow-origin"), "*");
});

test("the prepared answers (instance, custom emojis) are counted for apps, with headers; anonymous ones are not", async () => {
  await clearOfWindowEnd();
  const user = await server.user("prepared");
  const paths = ["/api/v1/instance", "/api/v2/instance", "/api/v1/custom_emojis"];
  const answers = [];
  for (const path of paths) answers.push(await server.get(path, { token: user.token }));
  assert.deepEqual(answers.map(limitOf), [
    [200, "6", "5"],
    [200, "6", "4"],
    [200, "6", "3"],
  ]);
  for (const [i, path] of paths.entries()) {
    // The same bytes as the anonymous answer, which the limiter does not see.
    const anonymous = await server.get(path);
    assert.deepEqual([anonymous.status, anonymous.headers.get("x-ratelimit-limit")], [200, null], path);
    assert.equal(answers[i].text, anonymous.text, path);
    assert.equal(answers[i].headers.get("etag"), anonymous.headers.get("etag"), path);
  }
  const fresh = await server.get("/api/v1/instance/", {
    token: user.token,
    headers: { "if-none-match": answers[0].headers.get("etag")! },
  });
  assert.deepEqual(limitOf(fresh), [304, "6", "2"]);
});

test("per token and per account: a second token has its own allowance, not the account's", async () => {
  await clearOfWindowEnd();
  const user = await server.user("tokens");
  for (let i = 0; i < 6; i++) await server.get("/api/v1/timelines/home", { token: user.token });
  assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 429);

  // The account has been counted 7 times out of 9; the new token once.
  const other = await secondToken(user);
  assert.deepEqual(limitOf(await server.get("/api/v1/timelines/home", { token: other })), [200, "9", "1"]);
  assert.deepEqual(limitOf(await server.get("/api/v1/timelines/home", { token: other })), [200, "9", "0"]);
  assert.deepEqual(limitOf(await server.get("/api/v1/timelines/home", { token: other })), [429, "9", "0"]);

  // Another account is not affected.
  const someoneElse = await server.user("someone_else");
  assert.deepEqual(limitOf(await server.get("/api/v1/timelines/home", { token: someoneElse.token })), [200, "6", "5"]);
});

test("per address without a user; preflights are not counted; a proxied address counts on its own", async () => {
  await clearOfWindowEnd();
  const preflight = await server.request("OPTIONS", "/api/v1/timelines/public", {
    headers: { origin: "https://app.example", "access-control-request-method": "GET" },
  });
  assert.equal(preflight.status, 204);
  assert.deepEqual(limitOf(await server.get("/api/v1/timelines/public")), [200, "3", "2"]);
  // An invalid token is refused, and counted by address as no user stands behind it.
  assert.deepEqual(limitOf(await server.get("/api/v1/timelines/public", { token: "not-a-token" })), [401, "3", "1"]);
  assert.deepEqual(limitOf(await server.get("/api/v1/instance/rules")), [200, "3", "0"]);
  const refused = await server.get("/api/v1/timelines/public");
  assert.deepEqual(limitOf(refused), [429, "3", "0"]);
  assert.deepEqual(refused.body, { error: "Too many requests" });
  // The instance documents are the same prepared bytes for everyone: never counted, never refused.
  assert.deepEqual(limitOf(await server.get("/api/v2/instance")), [200, null, null]);

  // Users are not counted by address.
  const user = await server.user("by_address");
  assert.equal((await server.get("/api/v1/timelines/public", { token: user.token })).status, 200);
  // Behind a proxy on this machine, the client's address is the one counted.
  const proxied = await server.get("/api/v1/timelines/public", { headers: { "x-forwarded-for": "203.0.113.9" } });
  assert.deepEqual(limitOf(proxied), [200, "3", "2"]);
  // An IPv6 client is counted by its /64.
  await server.get("/api/v1/instance/rules", { headers: { "x-forwarded-for": "2001:db8:1:2::1" } });
  const sameNetwork = await server.get("/api/v1/instance/rules", {
    headers: { "x-forwarded-for": "2001:db8:1:2:ffff::9" },
  });
  assert.deepEqual(limitOf(sameNetwork), [200, "3", "1"]);
});

test("paging: max_id, min_id, since_id and page count against a limit of their own", async () => {
  await clearOfWindowEnd();
  const user = await server.user("pager");
  const page = (query: Record<string, string>) => server.get("/api/v1/timelines/home", { token: user.token, query });
  assert.deepEqual(limitOf(await page({ max_id: "1" })), [200, "2", "1"]);
  assert.deepEqual(limitOf(await page({ since_id: "1" })), [200, "2", "0"]);
  assert.deepEqual(limitOf(await page({ min_id: "1" })), [429, "2", "0"]);
  // The first page is not paging.
  assert.deepEqual(limitOf(await page({ limit: "5" })), [200, "6", "2"]);
});

test("deletions: DELETE /api/v1/statuses/:id and unreblogs, 2 per 30 minutes here", async () => {
  await clearOfWindowEnd();
  const user = await server.user("deleter");
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await server.post("/api/v1/statuses", { token: user.token, json: { status: `post ${i}` } })).body.id);
  }
  await server.post(`/api/v1/statuses/${ids[2]}/reblog`, { token: user.token });
  const token = await secondToken(user);

  const first = await server.delete(`/api/v1/statuses/${ids[0]}`, { token });
  assert.deepEqual(limitOf(first), [200, "2", "1"]);
  const reset = Date.parse(first.headers.get("x-ratelimit-reset")!);
  assert.equal(reset % 1_800_000, 0, "a thirty-minute window");
  assert.deepEqual(limitOf(await server.post(`/api/v1/statuses/${ids[2]}/unreblog`, { token })), [200, "2", "0"]);
  const refused = await server.delete(`/api/v1/statuses/${ids[1]}`, { token });
  assert.deepEqual(limitOf(refused), [429, "2", "0"]);
  assert.deepEqual(refused.body, { error: "Too many requests" });
  assert.equal((await server.get(`/api/v1/statuses/${ids[1]}`, { token })).status, 200, "not deleted");
  // Other requests go on.
  assert.equal((await server.post("/api/v1/statuses", { token, json: { status: "still here" } })).status, 200);
});

test("media uploads: POST /api/v1/media and /api/v2/media count against their own limit", async () => {
  await clearOfWindowEnd();
  const user = await server.user("uploader");
  const first = await server.post("/api/v2/media", { token: user.token });
  assert.equal(first.headers.get("x-ratelimit-limit"), "1");
  assert.equal(first.headers.get("x-ratelimit-remaining"), "0");
  assert.deepEqual(limitOf(await server.post("/api/v1/media", { token: user.token })), [429, "1", "0"]);
});

test("counters are shared: two runtimes on one database count into one limit", async () => {
  await clearOfWindowEnd();
  await sharedBetweenRuntimes(server);
});

test("counters are shared through Redis when REDIS_URL is set", async () => {
  await clearOfWindowEnd();
  const withRedis = await startServer({ env: { ...LIMITS, REDIS_URL: "redis://127.0.0.1:6379" } });
  try {
    await sharedBetweenRuntimes(withRedis);
    const keys = await redisKeys(withRedis.rt);
    assert.ok(keys > 0, "counted in Redis");
  } finally {
    await withRedis.close();
  }
});

/** A second runtime and app on the same database and configuration, as another web thread or process. */
async function sharedBetweenRuntimes(target: TestServer): Promise<void> {
  const user = await target.user("shared");
  const other = await createRuntime(target.rt.config, { schema: target.schema, migrate: false });
  try {
    const otherApp = createApp(other);
    const viaOther = async () => {
      const res = await otherApp.request("/api/v1/timelines/home", {
        headers: { authorization: `Bearer ${user.token}` },
      });
      return [res.status, res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-remaining")];
    };
    const viaServer = async () => limitOf(await target.get("/api/v1/timelines/home", { token: user.token }));
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await viaServer(), await viaOther());
    assert.deepEqual(seen, [
      [200, "6", "5"],
      [200, "6", "4"],
      [200, "6", "3"],
      [200, "6", "2"],
      [200, "6", "1"],
      [200, "6", "0"],
      [429, "6", "0"],
      [429, "6", "0"],
    ]);
  } finally {
    await other.close();
  }
}

async function redisKeys(rt: Runtime): Promise<number> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(rt.config.redisUrl!);
  try {
    return (await redis.keys(`rookery:${rt.config.localDomain}:rate:*`)).length;
  } finally {
    await redis.quit();
  }
}

test("RATE_LIMITS=off: no limits and no headers", async () => {
  const off = await startServer({ env: { RATE_LIMITS: "off", RATE_LIMIT_PER_ADDRESS: "1" } });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await off.get("/api/v2/instance");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-ratelimit-limit"), null);
    }
  } finally {
    await off.close();
  }
});

test("RATE_LIMIT_LOOPBACK=exempt: this machine is not counted, a proxied client still is", async () => {
  await clearOfWindowEnd();
  const exempt = await startServer({ env: { RATE_LIMIT_LOOPBACK: "exempt", RATE_LIMIT_PER_ADDRESS: "1" } });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await exempt.get("/api/v1/instance/rules");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-ratelimit-limit"), null);
    }
    const proxied = { headers: { "x-forwarded-for": "198.51.100.7" } };
    assert.deepEqual(limitOf(await exempt.get("/api/v1/instance/rules", proxied)), [200, "1", "0"]);
    assert.deepEqual(limitOf(await exempt.get("/api/v1/instance/rules", proxied)), [429, "1", "0"]);
  } finally {
    await exempt.close();
  }
});

test("defaults are Mastodon's", async () => {
  const { loadConfig } = await import("../src/config.ts");
  assert.deepEqual(loadConfig({}).rateLimits, {
    enabled: true,
    exemptLoopback: false,
    perToken: 300,
    perAccount: 1500,
    perAddress: 300,
    paging: 300,
    media: 30,
    deletes: 30,
  });
});

test("precision: threads counting into one store let through at most 1% of the limit each beyond it", async () => {
  const { WindowCounters } = await import("../src/services/window_counters.ts");
  // A shared store that answers after a delay, as a database or Redis does.
  const totals = new Map<string, number>();
  const store = {
    async add(key: string, n: number, resetAt: Date) {
      await new Promise((r) => setTimeout(r, 1));
      const name = `${key}:${resetAt.getTime()}`;
      const total = (totals.get(name) ?? 0) + n;
      totals.set(name, total);
      return total;
    },
    async close() {},
  };
  await clearOfWindowEnd();
  const threads = [new WindowCounters(store), new WindowCounters(store), new WindowCounters(store)];
  let allowed = 0;
  // Each thread serves 20 requests at a time, 1,500 in all: twice the limit.
  for (let round = 0; round < 25; round++) {
    const answers = await Promise.all(threads.flatMap((t) => Array.from({ length: 20 }, () => t.hit("key", 700, 300))));
    allowed += answers.filter((a) => a.allowed).length;
  }
  const batch = 7;
  assert.ok(allowed >= 700 && allowed <= 700 + threads.length * batch, `${allowed} allowed`);

  const alone = new WindowCounters(store);
  let aloneAllowed = 0;
  for (let i = 0; i < 900; i++) if ((await alone.hit("alone", 700, 300)).allowed) aloneAllowed++;
  assert.equal(aloneAllowed, 700, "one thread is exact");
});

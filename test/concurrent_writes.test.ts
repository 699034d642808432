// The same request sent many times at once, as a double tap or an app's retry sends it: each "add
// once" write lands once, limits hold, and no request answers 500. On SQLite transactions take turns
// anyway; on PostgreSQL (READ COMMITTED) these are the races a check-then-insert lost.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { follow, freshUser, post } from "./fixtures.ts";
import { startServer, type TestResponse, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const AT_ONCE = 6;

/** The same request `n` times at once. */
function atOnce(n: number, send: (i: number) => Promise<TestResponse>): Promise<TestResponse[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i)));
}

/** Statuses and bodies, sorted: the order in which racing requests finish is not theirs to keep. */
const outcomes = (responses: TestResponse[]) =>
  responses.map((r) => (r.status === 200 ? "200" : `${r.status} ${r.body.error}`)).sort();

const times = <T>(n: number, value: T) => Array.from({ length: n }, () => value);

async function count(table: string, column: string, id: string): Promise<number> {
  const { rows } = await sql<{
    n: string | number;
  }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${id}`.execute(server.rt.db);
  return Number(rows[0].n);
}

test("pinning one status at once: one pin, the others already taken", async () => {
  const me = await freshUser(server, "pinner");
  const s = await post(server, me, "pin me");
  const res = await atOnce(AT_ONCE, () => server.post(`/api/v1/statuses/${s.id}/pin`, { token: me.token }));
  assert.deepEqual(outcomes(res), [
    "200",
    ...times(AT_ONCE - 1, "422 Validation failed: Status has already been taken"),
  ]);
  assert.equal(res.find((r) => r.status === 200)!.body.pinned, true);
  assert.equal(await count("status_pins", "account_id", me.accountId), 1);
});

test("pinning several statuses at once stops at the pin limit", async () => {
  const me = await freshUser(server, "manypins");
  const limit = server.rt.config.limits.pinnedStatuses;
  const statuses = [];
  for (let i = 0; i < limit + 3; i++) statuses.push(await post(server, me, `post ${i}`));
  for (const s of statuses.slice(0, limit - 1)) {
    assert.equal((await server.post(`/api/v1/statuses/${s.id}/pin`, { token: me.token })).status, 200);
  }
  const rest = statuses.slice(limit - 1);
  const res = await atOnce(rest.length, (i) => server.post(`/api/v1/statuses/${rest[i].id}/pin`, { token: me.token }));
  assert.deepEqual(outcomes(res), [
    "200",
    ...times(rest.length - 1, "422 Validation failed: You have already pinned the maximum number of posts"),
  ]);
  assert.equal(await count("status_pins", "account_id", me.accountId), limit);
  const pinned = await server.get(`/api/v1/accounts/${me.accountId}/statuses`, { query: { pinned: "true" } });
  assert.equal(pinned.body.length, limit);
});

test("adding one account to a list at once: one member, the others already taken", async () => {
  const me = await freshUser(server, "lister");
  const friend = await freshUser(server, "member");
  await follow(server, me, friend);
  const list = (await server.post("/api/v1/lists", { token: me.token, json: { title: "friends" } })).body;
  const res = await atOnce(8, () =>
    server.post(`/api/v1/lists/${list.id}/accounts`, { token: me.token, json: { account_ids: [friend.accountId] } }),
  );
  assert.deepEqual(outcomes(res), ["200", ...times(7, "422 Validation failed: Account has already been taken")]);
  assert.equal(await count("list_accounts", "list_id", list.id), 1);
  const members = await server.get(`/api/v1/lists/${list.id}/accounts`, { token: me.token });
  assert.deepEqual(
    members.body.map((a: any) => a.id),
    [friend.accountId],
  );
});

test("boosting one status at once: one boost, the same one answered to every request", async () => {
  const author = await freshUser(server, "boosted");
  const me = await freshUser(server, "booster");
  const s = await post(server, author, "boost me");
  const res = await atOnce(AT_ONCE, () => server.post(`/api/v1/statuses/${s.id}/reblog`, { token: me.token }));
  assert.deepEqual(outcomes(res), times(AT_ONCE, "200"));
  assert.equal(new Set(res.map((r) => r.body.id)).size, 1);
  const boosts = await server.rt.db
    .selectFrom("statuses")
    .select("id")
    .where("reblog_of_id", "=", s.id)
    .where("account_id", "=", me.accountId)
    .execute();
  assert.deepEqual(
    boosts.map((b) => b.id),
    [res[0].body.id],
  );
  assert.equal((await server.get(`/api/v1/statuses/${s.id}`)).body.reblogs_count, 1);
});

test("voting at once: one voter's votes count once, and every voter's vote is tallied", async () => {
  const author = await freshUser(server, "pollster");
  const s = await post(server, author, { status: "Which?", poll: { options: ["a", "b"], expires_in: 600 } });
  const voter = await freshUser(server, "voter");
  const same = await atOnce(AT_ONCE, () =>
    server.post(`/api/v1/polls/${s.poll.id}/votes`, { token: voter.token, json: { choices: [0] } }),
  );
  assert.deepEqual(outcomes(same), [
    "200",
    ...times(AT_ONCE - 1, "422 Validation failed: You have already voted on this poll"),
  ]);
  const voters: TestUser[] = [];
  for (let i = 0; i < AT_ONCE; i++) voters.push(await freshUser(server, "crowd"));
  const many = await atOnce(AT_ONCE, (i) =>
    server.post(`/api/v1/polls/${s.poll.id}/votes`, { token: voters[i].token, json: { choices: [1] } }),
  );
  assert.deepEqual(outcomes(many), times(AT_ONCE, "200"));
  const poll = (await server.get(`/api/v1/polls/${s.poll.id}`, { token: author.token })).body;
  assert.deepEqual(
    [poll.votes_count, poll.voters_count, poll.options.map((o: any) => o.votes_count)],
    [AT_ONCE + 1, AT_ONCE + 1, [1, AT_ONCE]],
  );
});

test("featuring hashtags at once: one row a tag, and the limit holds", async () => {
  const me = await freshUser(server, "featurer");
  const same = await atOnce(AT_ONCE, () =>
    server.post("/api/v1/featured_tags", { token: me.token, json: { name: "one" } }),
  );
  assert.deepEqual(outcomes(same), times(AT_ONCE, "200"));
  assert.equal(new Set(same.map((r) => r.body.id)).size, 1);
  for (let i = 2; i <= 9; i++) {
    assert.equal(
      (await server.post("/api/v1/featured_tags", { token: me.token, json: { name: `tag${i}` } })).status,
      200,
    );
  }
  const res = await atOnce(3, (i) =>
    server.post("/api/v1/featured_tags", { token: me.token, json: { name: `more${i}` } }),
  );
  assert.deepEqual(outcomes(res), [
    "200",
    ...times(2, "422 Validation failed: You have already featured the maximum number of hashtags"),
  ]);
  assert.equal(await count("featured_tags", "account_id", me.accountId), 10);
});

test("filtering one status at once: one row, the others already taken", async () => {
  const me = await freshUser(server, "filterer");
  const s = await post(server, await freshUser(server, "filtered"), "spoilers");
  const filter = (await server.post("/api/v2/filters", { token: me.token, json: { title: "f", context: ["home"] } }))
    .body;
  const res = await atOnce(AT_ONCE, () =>
    server.post(`/api/v2/filters/${filter.id}/statuses`, { token: me.token, json: { status_id: s.id } }),
  );
  assert.deepEqual(outcomes(res), [
    "200",
    ...times(AT_ONCE - 1, "422 Validation failed: Status has already been taken"),
  ]);
  const rows = await server.get(`/api/v2/filters/${filter.id}/statuses`, { token: me.token });
  assert.deepEqual(
    rows.body.map((r: any) => r.status_id),
    [s.id],
  );
});

test("idempotent relationships and marks made at once answer 200 each and are made once", async () => {
  const me = await freshUser(server, "toucher");
  const other = await freshUser(server, "touched");
  const s = await post(server, other, "touch me #concurrency");
  const posts = [
    `/api/v1/accounts/${other.accountId}/follow`,
    `/api/v1/accounts/${other.accountId}/pin`,
    `/api/v1/statuses/${s.id}/favourite`,
    `/api/v1/statuses/${s.id}/bookmark`,
    "/api/v1/tags/concurrency/follow",
    `/api/v1/accounts/${other.accountId}/mute`,
    `/api/v1/accounts/${other.accountId}/block`,
  ];
  for (const path of posts) {
    const res = await atOnce(AT_ONCE, () => server.post(path, { token: me.token, json: {} }));
    assert.deepEqual(outcomes(res), times(AT_ONCE, "200"), path);
  }
  const domain = await atOnce(AT_ONCE, () =>
    server.post("/api/v1/domain_blocks", { token: me.token, json: { domain: "spam.example" } }),
  );
  assert.deepEqual(outcomes(domain), times(AT_ONCE, "200"));
  const [mutes, blocks, domains, tags] = await Promise.all(
    ["/api/v1/mutes", "/api/v1/blocks", "/api/v1/domain_blocks", "/api/v1/followed_tags"].map((path) =>
      server.get(path, { token: me.token }),
    ),
  );
  assert.deepEqual(
    [mutes.body.length, blocks.body.length, domains.body, tags.body.length],
    [1, 1, ["spam.example"], 1],
  );
  // The block hides the status from the bookmarks list now: the rows tell.
  const bookmarks = await server.rt.db
    .selectFrom("bookmarks")
    .select("id")
    .where("account_id", "=", me.accountId)
    .execute();
  assert.equal(bookmarks.length, 1);
  const status = (await server.get(`/api/v1/statuses/${s.id}`)).body;
  assert.equal(status.favourites_count, 1);
});

test("admin blocks made at once: one is made, the others are taken; a clash that escapes is 422, never 500", async () => {
  const admin = await freshUser(server, "admin", { role: "admin", scopes: ["admin:read", "admin:write"] });
  const block = (ip: string) =>
    server.post("/api/v1/admin/ip_blocks", { token: admin.token, json: { ip, severity: "no_access" } });
  const res = await atOnce(AT_ONCE, () => block("192.0.2.1"));
  assert.deepEqual(outcomes(res).slice(0, 2), ["200", "422 Validation failed: Ip has already been taken"]);
  assert.equal(res.filter((r) => r.status === 200).length, 1);
  // Two blocks moved to one address at once: the check before the update may pass for both, and
  // the unique index refuses the second, as Mastodon answers a RecordNotUnique.
  const ids = [(await block("192.0.2.2")).body.id, (await block("192.0.2.3")).body.id];
  const moved = await atOnce(2, (i) =>
    server.put(`/api/v1/admin/ip_blocks/${ids[i]}`, {
      token: admin.token,
      json: { ip: "192.0.2.4", severity: "no_access" },
    }),
  );
  assert.deepEqual(moved.map((r) => r.status).sort(), [200, 422]);
  assert.match(
    moved.find((r) => r.status === 422)!.body.error,
    /^(Duplicate record|Validation failed: Ip has already been taken)$/,
  );
  const all = await server.get("/api/v1/admin/ip_blocks", { token: admin.token });
  const ips = all.body.map((b: any) => b.ip);
  assert.equal(ips.length, 3);
  assert.equal(ips.filter((ip: string) => ip.startsWith("192.0.2.4")).length, 1);
});

test("lists and scheduled statuses made at once stop at their limits", async () => {
  const me = await freshUser(server, "limited");
  for (let i = 0; i < 49; i++) {
    assert.equal((await server.post("/api/v1/lists", { token: me.token, json: { title: `l${i}` } })).status, 200);
  }
  const lists = await atOnce(3, (i) => server.post("/api/v1/lists", { token: me.token, json: { title: `more${i}` } }));
  assert.deepEqual(outcomes(lists), [
    "200",
    ...times(2, "422 Validation failed: You have reached the maximum number of lists"),
  ]);
  assert.equal(await count("lists", "account_id", me.accountId), 50);

  // 25 a day: all on one day, a day from now.
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const schedule = (i: number) =>
    server.post("/api/v1/statuses", { token: me.token, json: { status: `later ${i}`, scheduled_at: at } });
  for (let i = 0; i < 24; i++) assert.equal((await schedule(i)).status, 200);
  const scheduled = await atOnce(3, (i) => schedule(100 + i));
  assert.deepEqual(outcomes(scheduled), [
    "200",
    ...times(2, "422 Validation failed: You have exceeded the limit of scheduled posts for that day"),
  ]);
  assert.equal(await count("scheduled_statuses", "account_id", me.accountId), 25);
});

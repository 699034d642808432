// Home, list, public and hashtag timelines.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FEED_SIZE, rebuildHomeFeed, trimFeeds } from "../src/services/feeds/maintenance.ts";
import { follow, mute, post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let reader: TestUser;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

before(async () => {
  server = await startServer();
  reader = await server.user("reader");
  alice = await server.user("alice");
  bob = await server.user("bob");
  carol = await server.user("carol");
  for (const u of [alice, bob]) await follow(server, reader, u);
  await server.settle();
});
after(() => server.close());

const home = async (user: TestUser, query: Record<string, string> = {}) => {
  await server.settle();
  const res = await server.get("/api/v1/timelines/home", { token: user.token, query });
  assert.equal(res.status, 200);
  return res;
};
const ids = (res: { body: { id: string }[] }) => res.body.map((s) => s.id);

test("home: followed accounts and one's own posts, newest first", async () => {
  const a = (await post(server, alice, "from alice")).id;
  const c = (await post(server, carol, "from carol, not followed")).id;
  const b = (await post(server, bob, { status: "from bob", visibility: "private" })).id;
  const own = (await post(server, reader, "my own")).id;
  const res = await home(reader);
  assert.deepEqual(ids(res).slice(0, 3), [own, b, a]);
  assert.ok(!ids(res).includes(c));
  // Counters come fresh with every page.
  const bobs = res.body[1];
  assert.equal(bobs.account.statuses_count, 1);
  assert.equal(bobs.account.last_status_at, new Date().toISOString().slice(0, 10));
  assert.deepEqual([bobs.replies_count, bobs.reblogs_count, bobs.favourites_count], [0, 0, 0]);
});

test("home: replies only to people the reader follows", async () => {
  const root = (await post(server, carol, "carol's thread")).id;
  const toCarol = (await post(server, alice, { status: "@carol reply", in_reply_to_id: root })).id;
  const aliceRoot = (await post(server, alice, "alice's thread")).id;
  const toAlice = (await post(server, bob, { status: "@alice reply", in_reply_to_id: aliceRoot })).id;
  const selfReply = (await post(server, alice, { status: "more", in_reply_to_id: aliceRoot })).id;
  const got = ids(await home(reader));
  assert.ok(!got.includes(toCarol), "a reply to someone not followed stays out");
  assert.ok(got.includes(toAlice));
  assert.ok(got.includes(selfReply));
});

test("home: boosts, collapsed, and not when the follow hides them", async () => {
  const original = (await post(server, carol, "boost worthy")).id;
  const boost1 = (await server.post(`/api/v1/statuses/${original}/reblog`, { token: alice.token })).body.id;
  const boost2 = (await server.post(`/api/v1/statuses/${original}/reblog`, { token: bob.token })).body.id;
  let got = ids(await home(reader));
  assert.ok(got.includes(boost1));
  assert.ok(!got.includes(boost2), "a second boost of the same status is collapsed");
  const res = await home(reader);
  const entry = res.body.find((s: { id: string }) => s.id === boost1);
  assert.equal(entry.reblog.id, original);

  await follow(server, reader, bob, { reblogs: false });
  const another = (await post(server, carol, "another")).id;
  const boost3 = (await server.post(`/api/v1/statuses/${another}/reblog`, { token: bob.token })).body.id;
  got = ids(await home(reader));
  assert.ok(!got.includes(boost3));
  await follow(server, reader, bob, { reblogs: true });
});

test("home: boosts of one status made at once still reach a feed only once", async () => {
  const watcher = await server.user("watcher");
  const boosters = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => server.user(`booster${n}`)));
  for (const b of boosters) await follow(server, watcher, b);
  const original = (await post(server, carol, "boosted by six at once")).id;
  const boosts = await Promise.all(
    boosters.map((b) => server.post(`/api/v1/statuses/${original}/reblog`, { token: b.token })),
  );
  assert.deepEqual(
    boosts.map((b) => b.status),
    [200, 200, 200, 200, 200, 200],
  );
  const shown = (await home(watcher)).body.filter((s: { reblog: { id: string } | null }) => s.reblog?.id === original);
  assert.equal(shown.length, 1);
});

test("home: muting, blocking and unfollowing take posts out; following brings them in", async () => {
  const fromCarol = (await post(server, carol, "before the follow")).id;
  assert.ok(!ids(await home(reader)).includes(fromCarol));
  await follow(server, reader, carol);
  assert.ok(ids(await home(reader)).includes(fromCarol), "following merges recent posts");
  await mute(server, reader, carol);
  assert.ok(!ids(await home(reader)).includes(fromCarol));
  await server.post(`/api/v1/accounts/${carol.accountId}/unmute`, { token: reader.token });
  const later = (await post(server, carol, "after the mute")).id;
  assert.ok(ids(await home(reader)).includes(later));
  await server.post(`/api/v1/accounts/${carol.accountId}/unfollow`, { token: reader.token });
  assert.ok(!ids(await home(reader)).includes(later));
});

test("home: deleted statuses leave; pagination with Link headers", async () => {
  const doomed = (await post(server, alice, "doomed")).id;
  assert.ok(ids(await home(reader)).includes(doomed));
  await server.delete(`/api/v1/statuses/${doomed}`, { token: alice.token });
  assert.ok(!ids(await home(reader)).includes(doomed));

  const all = ids(await home(reader, { limit: "40" }));
  const page = await home(reader, { limit: "3" });
  assert.deepEqual(ids(page), all.slice(0, 3));
  const next = new URL(/<([^>]+)>; rel="next"/.exec(page.headers.get("link")!)![1]);
  const page2 = await server.get(next.pathname + next.search, { token: reader.token });
  assert.deepEqual(ids(page2), all.slice(3, 6));
  const end = await home(reader, { max_id: all.at(-1)! });
  assert.deepEqual(end.body, []);
  assert.equal(end.headers.get("link"), null);
});

test("home: every page carries the reader's flags and fresh counters, on boosted statuses too", async () => {
  const liked = (await post(server, alice, "to favourite")).id;
  const kept = (await post(server, alice, "to bookmark and boost")).id;
  const pinned = (await post(server, reader, "mine, pinned")).id;
  const thread = (await post(server, bob, "a thread the reader mutes")).id;
  const carols = (await post(server, carol, "carol's, boosted by bob")).id;
  const boost = (await server.post(`/api/v1/statuses/${carols}/reblog`, { token: bob.token })).body.id;
  for (const [id, action] of [
    [liked, "favourite"],
    [kept, "bookmark"],
    [kept, "reblog"],
    [pinned, "pin"],
    [thread, "mute"],
    [carols, "favourite"],
  ]) {
    assert.equal((await server.post(`/api/v1/statuses/${id}/${action}`, { token: reader.token })).status, 200);
  }
  assert.equal((await server.post(`/api/v1/statuses/${carols}/favourite`, { token: alice.token })).status, 200);

  const flags = (s: Record<string, unknown>) =>
    [s.favourited, s.reblogged, s.bookmarked, s.muted, s.pinned ?? null].map((f) => (f ? 1 : 0)).join("");
  const counts = (s: Record<string, number>) => [s.replies_count, s.reblogs_count, s.favourites_count];
  // The reader's own boost of `kept` is the newest entry; below it, the five statuses above. Then a
  // page read below the boost by bob, and one read above `liked`.
  const first = (await home(reader, { limit: "6" })).body;
  const own = first[0];
  assert.equal(own.reblog.id, kept);
  const [b, t, p, k, l] = first.slice(1);
  assert.deepEqual(ids({ body: [b, t, p, k, l] }), [boost, thread, pinned, kept, liked]);
  assert.equal(b.reblog.id, carols);
  assert.equal(flags(b.reblog), "10000");
  assert.deepEqual(counts(b.reblog), [0, 1, 2]);
  assert.equal(b.reblog.account.id, carol.accountId);
  assert.equal(b.reblog.account.last_status_at, new Date().toISOString().slice(0, 10));
  assert.equal(flags(own.reblog), "01100");
  assert.equal(flags(t), "00010");
  assert.equal(flags(p), "00001");
  assert.equal(flags(k), "01100");
  assert.deepEqual(counts(k), [0, 1, 0]);
  assert.equal(flags(l), "10000");
  assert.deepEqual(counts(l), [0, 0, 1]);
  const older = (await home(reader, { limit: "2", max_id: boost })).body;
  assert.deepEqual(older.map(flags), ["00010", "00001"]);
  const newer = (await home(reader, { limit: "2", min_id: liked })).body;
  assert.deepEqual(ids({ body: newer }), [pinned, kept]);
  assert.deepEqual(newer.map(flags), ["00001", "01100"]);
  await server.post(`/api/v1/statuses/${pinned}/unpin`, { token: reader.token });
  await server.post(`/api/v1/statuses/${kept}/unreblog`, { token: reader.token });
});

test("home: keyword filters hide or mark statuses", async () => {
  const hidden = (await post(server, alice, "the finale was great")).id;
  const warned = (await post(server, alice, "spoilers about the plot")).id;
  await server.post("/api/v2/filters", {
    token: reader.token,
    json: { title: "finale", context: ["home"], filter_action: "hide", keywords_attributes: [{ keyword: "finale" }] },
  });
  await server.post("/api/v2/filters", {
    token: reader.token,
    json: { title: "plot", context: ["home"], filter_action: "warn", keywords_attributes: [{ keyword: "plot" }] },
  });
  const res = await home(reader);
  assert.ok(!ids(res).includes(hidden));
  const w = res.body.find((s: { id: string }) => s.id === warned);
  assert.equal(w.filtered.length, 1);
  assert.equal(w.filtered[0].filter.title, "plot");
  assert.deepEqual(w.filtered[0].keyword_matches, ["plot"]);
});

test("direct messages reach the mentioned reader's home", async () => {
  const dm = (await post(server, carol, { status: "@reader just for you", visibility: "direct" })).id;
  assert.ok(ids(await home(reader)).includes(dm));
  assert.ok(!ids(await home(bob)).includes(dm));
});

test("a trimmed feed reads on past its horizon from the statuses", async () => {
  const writer = await server.user("writer");
  const fan = await server.user("fan");
  await follow(server, fan, writer);
  const posted: string[] = [];
  for (let i = 0; i < 30; i++) posted.push((await post(server, writer, `n${i}`)).id);
  await server.settle();
  // Keep only the 10 newest entries, as a trim of a long feed would.
  const keep = posted.slice(-10);
  await server.rt.db
    .deleteFrom("feed_entries")
    .where("feed_id", "=", fan.accountId)
    .where("status_id", "not in", keep)
    .execute();
  await server.rt.db.insertInto("feed_horizons").values({ feed_id: fan.accountId, horizon_id: keep[0] }).execute();
  const first = await home(fan, { limit: "20" });
  assert.deepEqual(ids(first), posted.slice(-20).reverse());
  const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get("link")!)![1]);
  const second = await server.get(next.pathname + next.search, { token: fan.token });
  assert.deepEqual(ids(second), posted.slice(0, 10).reverse());
  assert.doesNotMatch(second.headers.get("link") ?? "", /rel="next"/);

  assert.equal(await rebuildHomeFeed(server.rt, fan.accountId), 30);
});

test("trimming cuts feeds past 880 entries back to their newest 800, a chunk of feeds past a cursor at a time", async () => {
  assert.equal(FEED_SIZE, 800);
  const short = await server.user("trim_short");
  const long = await server.user("trim_long");
  const later = await server.user("trim_later");
  // Entries of statuses that need not exist: only the feeds' lengths matter here.
  const fill = (feed: string, count: number) =>
    server.rt.db
      .insertInto("feed_entries")
      .values(
        Array.from({ length: count }, (_, i) => ({
          feed_id: feed,
          status_id: String(1000 + i),
          account_id: feed,
          reblog_of_id: null,
          reblog_author_id: null,
        })),
      )
      .execute();
  await fill(short.accountId, 880);
  await fill(long.accountId, 900);
  await fill(later.accountId, 881);
  const length = async (feed: string) =>
    Number(
      (
        await server.rt.db
          .selectFrom("feed_entries")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("feed_id", "=", feed)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const horizon = async (feed: string) =>
    (await server.rt.db.selectFrom("feed_horizons").select("horizon_id").where("feed_id", "=", feed).executeTakeFirst())
      ?.horizon_id;

  // A chunk starts past its cursor: the feeds before it are left for the chunks before.
  await trimFeeds(server.rt, { after: long.accountId });
  assert.equal(await length(long.accountId), 900);
  assert.equal(await length(later.accountId), 800);
  assert.equal(String(await horizon(later.accountId)), "1081");

  // Lists are feeds too: enough of them that a pass takes more than one chunk on SQLite.
  for (let i = 0; i < 11; i++)
    assert.equal(
      (await server.post("/api/v1/lists", { token: later.token, json: { title: `trim ${i}` } })).status,
      200,
    );
  // A whole pass, as the worker runs it: every chunk, each a job, the next after a short pause;
  // until only the next pass, ten minutes away, waits.
  await server.rt.queue.enqueue("feeds.trim", {});
  for (;;) {
    await server.settle();
    const chunk = await server.rt.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "feeds.trim")
      .where("run_at", "<", new Date(Date.now() + 60_000))
      .executeTakeFirst();
    if (!chunk) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(await length(short.accountId), 880);
  assert.equal(await horizon(short.accountId), undefined);
  assert.equal(await length(long.accountId), 800);
  assert.equal(String(await horizon(long.accountId)), "1100");
  const kept = await server.rt.db
    .selectFrom("feed_entries")
    .select((eb) => [eb.fn.min("status_id").as("low"), eb.fn.max("status_id").as("high")])
    .where("feed_id", "=", long.accountId)
    .executeTakeFirstOrThrow();
  assert.deepEqual([String(kept.low), String(kept.high)], ["1100", "1899"]);
  // One trim stays scheduled for later, and no other.
  const trims = await server.rt.db.selectFrom("jobs").select("run_at").where("type", "=", "feeds.trim").execute();
  assert.equal(trims.length, 1);
  assert.ok(new Date(trims[0].run_at).getTime() > Date.now() + 60_000);
});

test("lists: members' posts, replies by policy, exclusive lists keep members out of home", async () => {
  const list = (
    await server.post("/api/v1/lists", {
      token: reader.token,
      json: { title: "Alice", replies_policy: "none", exclusive: true },
    })
  ).body;
  await server.post(`/api/v1/lists/${list.id}/accounts`, {
    token: reader.token,
    json: { account_ids: [alice.accountId] },
  });
  await server.settle();
  const inList = (await post(server, alice, "for the list")).id;
  const root = (await post(server, bob, "bob's")).id;
  const reply = (await post(server, alice, { status: "@bob reply", in_reply_to_id: root })).id;
  await server.settle();
  const res = await server.get(`/api/v1/timelines/list/${list.id}`, { token: reader.token });
  assert.equal(res.status, 200);
  assert.ok(ids(res).includes(inList));
  assert.ok(!ids(res).includes(reply), "replies_policy none");
  assert.ok(!ids(await home(reader)).includes(inList), "exclusive lists keep their members out of home");
  assert.equal((await server.get(`/api/v1/timelines/list/${list.id}`, { token: bob.token })).status, 404);
});

test("public timelines: local, without replies to others or boosts; tag timelines with any/all/none", async () => {
  const p = (await post(server, alice, "public #Rust #Go")).id;
  const u = (await post(server, alice, { status: "unlisted #rust", visibility: "unlisted" })).id;
  const r = (await post(server, bob, { status: "@alice reply #rust", in_reply_to_id: p })).id;
  const onlyGo = (await post(server, bob, "just #go")).id;
  const pub = ids(await server.get("/api/v1/timelines/public", { query: { limit: "40" } }));
  assert.ok(pub.includes(p));
  assert.ok(!pub.includes(u));
  assert.ok(!pub.includes(r));
  assert.deepEqual(ids(await server.get("/api/v1/timelines/public", { query: { remote: "true" } })), []);
  assert.ok(ids(await server.get("/api/v1/timelines/public", { query: { local: "true" } })).includes(p));

  const rust = ids(await server.get("/api/v1/timelines/tag/RUST"));
  assert.deepEqual(rust.slice(0, 2), [r, p], "hashtags match whatever their case");
  assert.deepEqual(ids(await server.get("/api/v1/timelines/tag/%23rust", { query: { "all[]": "go" } })), [p]);
  assert.deepEqual(
    ids(await server.get("/api/v1/timelines/tag/rust", { query: { "any[]": "go", "none[]": "rust" } })),
    [onlyGo],
  );
  // A name that cannot be a tag finds nothing, as in Mastodon (not a 404).
  for (const name of ["%E2%98%85", "-", "%23"]) {
    const none = await server.get(`/api/v1/timelines/tag/${name}`, { query: { "any[]": "rust" } });
    assert.equal(none.status, 200, name);
    assert.deepEqual(none.body, [], name);
  }
  // No link trends (no link previews yet): Mastodon answers a link that does not trend with 404.
  assert.equal((await server.get("/api/v1/timelines/link", { query: { url: "https://example.com" } })).status, 404);
});

test("without public preview, the public timelines need a signed-in user", async () => {
  const closed = await startServer({ env: { PUBLIC_PREVIEW: "false" } });
  try {
    const anon = await closed.get("/api/v1/timelines/public");
    assert.equal(anon.status, 422);
    assert.equal(anon.body.error, "This method requires an authenticated user");
    const user = await closed.user("someone");
    assert.equal((await closed.get("/api/v1/timelines/public", { token: user.token })).status, 200);
  } finally {
    await closed.close();
  }
});

// Where a read path once showed a status its single-status answer hid: notifications of blocked or
// removed followers, mentions taken out by an edit, boosts of statuses from blocked domains, and
// `hide` filters shortening pages.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { insertStatus, remoteAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  carol = await server.user("carol");
});
after(() => server.close());

const ids = (res: { body: { id: string }[] }) => res.body.map((s) => s.id);

async function post(user: TestUser, status: string, visibility = "public"): Promise<string> {
  const res = await server.post("/api/v1/statuses", { token: user.token, json: { status, visibility } });
  assert.equal(res.status, 200);
  return res.body.id;
}

/** The statuses of `user`'s notifications of `type`, v1 and v2 (which must agree). */
async function notifiedStatuses(user: TestUser, type: string): Promise<string[]> {
  const v1 = await server.get("/api/v1/notifications", { token: user.token, query: { "types[]": type } });
  const v2 = await server.get("/api/v2/notifications", { token: user.token, query: { "types[]": type } });
  const fromV1 = v1.body.map((n: { status: { id: string } }) => n.status.id);
  const fromV2 = v2.body.statuses.map((s: { id: string }) => s.id);
  assert.deepEqual(fromV2.toSorted(), fromV1.toSorted(), "v1 and v2 list the same statuses");
  return fromV1;
}

for (const how of ["blocks", "removes from followers"] as const) {
  test(`a follower the author ${how} keeps no status notification of what it can no longer open`, async () => {
    const author = await server.user(`author_${how.length}`);
    const follower = await server.user(`follower_${how.length}`);
    await server.post(`/api/v1/accounts/${author.accountId}/follow`, { token: follower.token, json: { notify: true } });
    const id = await post(author, "for followers", "private");
    await server.settle();
    assert.deepEqual(await notifiedStatuses(follower, "status"), [id]);
    const action = how === "blocks" ? "block" : "remove_from_followers";
    assert.equal(
      (await server.post(`/api/v1/accounts/${follower.accountId}/${action}`, { token: author.token })).status,
      200,
    );
    assert.equal((await server.get(`/api/v1/statuses/${id}`, { token: follower.token })).status, 404);
    assert.deepEqual(await notifiedStatuses(follower, "status"), []);
    // Read again before any clean-up job could run: the read path decides, not the clean-up.
    await server.settle();
    assert.deepEqual(await notifiedStatuses(follower, "status"), []);
  });
}

test("a mention an edit takes out stays silent: access, notification, conversation and home agree", async () => {
  // Followers of alice, so that her private mentions are not held as notification requests.
  for (const u of [bob, carol]) await server.post(`/api/v1/accounts/${alice.accountId}/follow`, { token: u.token });
  const id = await post(alice, `@${bob.username} just between us`, "direct");
  await server.settle();
  const edited = await server.put(`/api/v1/statuses/${id}`, { token: alice.token, json: { status: "just me now" } });
  assert.equal(edited.status, 200);
  assert.deepEqual(edited.body.mentions, [], "the status no longer shows the mention");
  await server.settle();
  const shown = await server.get(`/api/v1/statuses/${id}`, { token: bob.token });
  assert.equal(shown.status, 200, "the silently mentioned account keeps access");
  assert.equal(shown.body.content, "<p>just me now</p>");
  assert.deepEqual(await notifiedStatuses(bob, "mention"), [id]);
  const conversations = await server.get("/api/v1/conversations", { token: bob.token });
  assert.deepEqual(
    conversations.body.map((c: { last_status: { id: string } }) => c.last_status.id),
    [id],
  );
  assert.ok(ids(await server.get("/api/v1/timelines/home", { token: bob.token })).includes(id));
  assert.equal((await server.get(`/api/v1/statuses/${id}`, { token: carol.token })).status, 404);

  // Mentioned again: shown again, and no second notification; a new mention notifies.
  const again = await server.put(`/api/v1/statuses/${id}`, {
    token: alice.token,
    json: { status: `@${bob.username} @${carol.username} back` },
  });
  assert.deepEqual(
    again.body.mentions.map((m: { id: string }) => m.id),
    [bob.accountId, carol.accountId],
  );
  await server.settle();
  assert.deepEqual(await notifiedStatuses(bob, "mention"), [id]);
  assert.deepEqual(await notifiedStatuses(carol, "mention"), [id]);
});

test("a followed account's boost of a status from a blocked domain stays out of home, whenever the block came", async () => {
  const reader = await server.user("reader");
  const booster = await server.user("booster");
  await server.post(`/api/v1/accounts/${booster.accountId}/follow`, { token: reader.token });
  const far = await remoteAccount(server, "far", "blocked.example");
  const before = await insertStatus(server, far, { local: false });
  const later = await insertStatus(server, far, { local: false });

  const boostedLater = (await server.post(`/api/v1/statuses/${later}/reblog`, { token: booster.token })).body.id;
  await server.settle();
  assert.ok(ids(await server.get("/api/v1/timelines/home", { token: reader.token })).includes(boostedLater));

  await server.post("/api/v1/domain_blocks", { token: reader.token, json: { domain: "blocked.example" } });
  const boostedBefore = (await server.post(`/api/v1/statuses/${before}/reblog`, { token: booster.token })).body.id;
  const own = await post(booster, "still here");
  await server.settle();
  const home = ids(await server.get("/api/v1/timelines/home", { token: reader.token }));
  assert.ok(home.includes(own));
  assert.ok(!home.includes(boostedBefore), "a boost after the block is not fanned out");
  assert.ok(!home.includes(boostedLater), "a boost from before the block is left out on read");
  for (const id of [boostedBefore, boostedLater, before]) {
    assert.equal((await server.get(`/api/v1/statuses/${id}`, { token: reader.token })).status, 404);
  }
});

test("a boost undone before its feeds are cleaned leaves no gap in a home page", async () => {
  const reader = await server.user("undone_reader");
  const booster = await server.user("undone_booster");
  await server.post(`/api/v1/accounts/${booster.accountId}/follow`, { token: reader.token });
  const older = [await post(booster, "first"), await post(booster, "second")];
  const boost = (await server.post(`/api/v1/statuses/${await post(carol, "boosted")}/reblog`, { token: booster.token }))
    .body.id;
  const newest = await post(booster, "third");
  await server.settle();
  // What undoing a boost does at once (the boost's row goes); its feed entries wait for a job.
  await server.rt.db.deleteFrom("statuses").where("id", "=", boost).execute();
  const page = await server.get("/api/v1/timelines/home", { token: reader.token, query: { limit: "2" } });
  assert.deepEqual(ids(page), [newest, older[1]]);
});

test("a hide filter leaves statuses out before the page is cut: pages stay full", async () => {
  const writer = await server.user("writer");
  const reader = await server.user("hider");
  await server.post(`/api/v1/accounts/${writer.accountId}/follow`, { token: reader.token });
  const kept: string[] = [];
  for (let i = 0; i < 6; i++) {
    kept.push(await post(writer, `plain ${i}`));
    await post(writer, `spoilers ${i}`);
  }
  await server.settle();
  const filter = await server.post("/api/v2/filters", {
    token: reader.token,
    json: {
      title: "no spoilers",
      context: ["home", "account", "public"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "spoilers" }],
    },
  });
  assert.equal(filter.status, 200);
  const newest = kept.toReversed();
  for (const path of ["/api/v1/timelines/home", `/api/v1/accounts/${writer.accountId}/statuses`]) {
    const first = await server.get(path, { token: reader.token, query: { limit: "3" } });
    assert.deepEqual(ids(first), newest.slice(0, 3), path);
    const next = first.headers.get("link")?.match(/<([^>]+)>; rel="next"/)?.[1];
    assert.ok(next, `${path} links to the next page`);
    const second = await server.get(new URL(next).pathname + new URL(next).search, {
      token: reader.token,
    });
    assert.deepEqual(ids(second), newest.slice(3, 6), path);
  }
  const older = await server.get("/api/v1/timelines/home", {
    token: reader.token,
    query: { limit: "2", min_id: kept[1] },
  });
  assert.deepEqual(ids(older), [kept[3], kept[2]]);
});

test("a block leaves the other's statuses out of home at once, before its clean-up job, either way", async () => {
  // A server of its own: its job worker is stopped part way, so that the feeds are not cleaned.
  const own = await startServer();
  try {
    const reader = await own.user("reader");
    const blocked = await own.user("blocked");
    const blocker = await own.user("blocker");
    for (const author of [blocked, blocker]) {
      await own.post(`/api/v1/accounts/${author.accountId}/follow`, { token: reader.token });
    }
    const byBlocked = (await own.post("/api/v1/statuses", { token: blocked.token, json: { status: "one" } })).body.id;
    const byBlocker = (await own.post("/api/v1/statuses", { token: blocker.token, json: { status: "two" } })).body.id;
    await own.settle();
    const home = async () => ids(await own.get("/api/v1/timelines/home", { token: reader.token }));
    // Read first, so that the server has seen the reader in no block at all.
    assert.deepEqual(await home(), [byBlocker, byBlocked]);
    await own.rt.queue.stop();
    assert.equal((await own.post(`/api/v1/accounts/${blocked.accountId}/block`, { token: reader.token })).status, 200);
    assert.deepEqual(await home(), [byBlocker], "the reader's own block");
    assert.equal((await own.post(`/api/v1/accounts/${reader.accountId}/block`, { token: blocker.token })).status, 200);
    assert.deepEqual(await home(), [], "a block of the reader");
    const left = await own.rt.db
      .selectFrom("feed_entries")
      .select("status_id")
      .where("feed_id", "=", reader.accountId)
      .execute();
    assert.equal(left.length, 2, "the feed itself still holds both: only the read left them out");
  } finally {
    await own.close();
  }
});

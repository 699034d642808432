// The notifications API: v1 lists and single notifications, v2 groups, the unread counts against the
// notifications marker, and the policy that files strangers' notifications into requests.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { publishEvent } from "../src/streaming/events.ts";
import { assertEntity } from "./conformance.ts";
import { acceptFollow, block, follow, mute, post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

interface Note {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  account: { id: string };
  status?: { id: string };
}

async function notes(user: TestUser, query: Record<string, string | string[]> = {}) {
  const res = await server.get<Note[]>("/api/v1/notifications", { token: user.token, query });
  assert.equal(res.status, 200, res.text);
  return res;
}

const summary = (list: Note[]) => list.map((n) => [n.type, n.account.id, n.status?.id ?? null]);

test("each action notifies its target with the right type, account and status", async (t) => {
  const alice = await server.user("alice");
  const bob = await server.user("bob");
  const carol = await server.user("carol");

  const own = (await post(server, alice, "a post by alice")).id;
  await follow(server, bob, alice);
  const mention = (await post(server, bob, "hello @alice")).id;
  await server.post(`/api/v1/statuses/${own}/favourite`, { token: bob.token });
  await server.post(`/api/v1/statuses/${own}/reblog`, { token: carol.token });
  // Edits notify those who boosted.
  await server.put(`/api/v1/statuses/${own}`, { token: alice.token, json: { status: "a post by alice, edited" } });
  // Locked: a follow becomes a request. Following with notify: new posts notify.
  await server.patch("/api/v1/accounts/update_credentials", { token: carol.token, json: { locked: true } });
  await follow(server, bob, carol);
  await follow(server, alice, carol);
  await acceptFollow(server, carol, alice);
  await follow(server, alice, carol, { notify: true });
  const carolsPost = (await post(server, carol, "carol writes")).id;
  await server.settle();

  const forAlice = (await notes(alice)).body;
  assert.deepEqual(summary(forAlice), [
    ["status", carol.accountId, carolsPost],
    ["reblog", carol.accountId, own],
    ["favourite", bob.accountId, own],
    ["mention", bob.accountId, mention],
    ["follow", bob.accountId, null],
  ]);
  for (const n of forAlice) assertEntity(t, "Notification", n);
  assert.equal(forAlice[3].group_key, `ungrouped-${forAlice[3].id}`);
  assert.match(forAlice[2].group_key, new RegExp(`^favourite-${own}-\\d+$`));

  // An authorized request leaves a follow in place of its follow_request.
  assert.deepEqual(summary((await notes(carol)).body), [
    ["follow", alice.accountId, null],
    ["follow_request", bob.accountId, null],
    ["update", alice.accountId, own],
  ]);
  const one = await server.get(`/api/v1/notifications/${forAlice[1].id}`, { token: alice.token });
  assert.equal(one.status, 200);
  assert.deepEqual(summary([one.body]), [["reblog", carol.accountId, own]]);
  assert.equal((await server.get(`/api/v1/notifications/${forAlice[1].id}`, { token: bob.token })).status, 404);
});

test("blocked, muted and domain-blocked senders notify nobody; a mute may keep notifications", async () => {
  const erin = await server.user("erin");
  const blocked = await server.user("blocked");
  const muted = await server.user("muted");
  const quiet = await server.user("quiet");
  await block(server, erin, blocked);
  await mute(server, erin, muted);
  await mute(server, erin, quiet, { notifications: false });
  const own = (await post(server, erin, "erin's post")).id;
  for (const sender of [blocked, muted, quiet]) {
    await post(server, sender, "hey @erin");
    await server.post(`/api/v1/statuses/${own}/favourite`, { token: sender.token });
  }
  await follow(server, muted, erin);
  assert.deepEqual(
    (await notes(erin)).body.map((n) => [n.type, n.account.id]),
    [
      ["favourite", quiet.accountId],
      ["mention", quiet.accountId],
    ],
  );
});

test("types, exclude_types, account_id and min_id select notifications; Link headers page them", async () => {
  const frank = await server.user("frank");
  const fans = [await server.user("fan1"), await server.user("fan2"), await server.user("fan3")];
  const own = (await post(server, frank, "frank's post")).id;
  for (const fan of fans) {
    await follow(server, fan, frank);
    await server.post(`/api/v1/statuses/${own}/favourite`, { token: fan.token });
  }
  const all = (await notes(frank)).body;
  assert.equal(all.length, 6);

  const follows = (await notes(frank, { "types[]": ["follow"] })).body;
  assert.deepEqual(
    follows.map((n) => n.account.id),
    fans.map((f) => f.accountId).reverse(),
  );
  const noFollows = (await notes(frank, { "exclude_types[]": ["follow"] })).body;
  assert.deepEqual(
    noFollows.map((n) => n.type),
    ["favourite", "favourite", "favourite"],
  );
  assert.deepEqual((await notes(frank, { "types[]": ["no-such-type"] })).body, []);
  const fromOne = (await notes(frank, { account_id: fans[1].accountId })).body;
  assert.deepEqual(
    fromOne.map((n) => [n.type, n.account.id]),
    [
      ["favourite", fans[1].accountId],
      ["follow", fans[1].accountId],
    ],
  );
  assert.deepEqual((await notes(frank, { account_id: "nonsense" })).body, []);

  // Newest first, two at a time.
  const first = await notes(frank, { limit: "2" });
  assert.deepEqual(
    first.body.map((n) => n.id),
    [all[0].id, all[1].id],
  );
  const link = first.headers.get("link")!;
  assert.match(link, new RegExp(`max_id=${all[1].id}>; rel="next"`));
  assert.match(link, new RegExp(`min_id=${all[0].id}>; rel="prev"`));
  assert.match(link, /limit=2/);
  // min_id: the notifications right after it, still newest first.
  const after = await notes(frank, { min_id: all[4].id, limit: "2" });
  assert.deepEqual(
    after.body.map((n) => n.id),
    [all[2].id, all[3].id],
  );
  assert.match(after.headers.get("link")!, new RegExp(`min_id=${all[2].id}>; rel="prev"`));
  const last = await notes(frank, { max_id: all[3].id, limit: "2" });
  assert.deepEqual(
    last.body.map((n) => n.id),
    [all[4].id, all[5].id],
  );
  const end = await notes(frank, { max_id: all[5].id, limit: "2" });
  assert.deepEqual(end.body, []);
  assert.equal(end.headers.get("link"), null);
  // Limits: 40 by default, at most 80.
  assert.equal((await notes(frank, { limit: "500" })).body.length, 6);
});

test("unread counts follow the notifications marker; dismiss and clear remove notifications", async () => {
  const gina = await server.user("gina");
  const others = [await server.user("h1"), await server.user("h2"), await server.user("h3")];
  const own = (await post(server, gina, "gina's post")).id;
  for (const o of others) await server.post(`/api/v1/statuses/${own}/favourite`, { token: o.token });
  await post(server, others[0], "@gina hi");
  const count = async (version: 1 | 2, query: Record<string, string> = {}) =>
    (await server.get(`/api/v${version}/notifications/unread_count`, { token: gina.token, query })).body.count;
  assert.equal(await count(1), 4);
  assert.equal(await count(2), 2, "three favourites of one status are one group");
  assert.equal(await count(1, { limit: "2" }), 2);

  const list = (await notes(gina)).body;
  await server.post("/api/v1/markers", { token: gina.token, json: { notifications: { last_read_id: list[2].id } } });
  assert.equal(await count(1), 2);
  assert.equal(await count(2), 2);
  await server.post("/api/v1/markers", { token: gina.token, json: { notifications: { last_read_id: list[0].id } } });
  assert.equal(await count(1), 0);
  assert.equal(await count(2), 0);

  const dismissed = await server.post(`/api/v1/notifications/${list[0].id}/dismiss`, { token: gina.token });
  assert.deepEqual([dismissed.status, dismissed.body], [200, {}]);
  assert.equal((await notes(gina)).body.length, 3);
  assert.equal((await server.post(`/api/v1/notifications/${list[0].id}/dismiss`, { token: gina.token })).status, 404);
  const cleared = await server.post("/api/v1/notifications/clear", { token: gina.token });
  assert.deepEqual([cleared.status, cleared.body], [200, {}]);
  assert.deepEqual((await notes(gina)).body, []);
});

test("v2 groups favourites of one status and follows, and pages by group", async (t) => {
  const hank = await server.user("hank");
  const likers = [await server.user("l1"), await server.user("l2"), await server.user("l3")];
  const first = (await post(server, hank, "first")).id;
  const second = (await post(server, hank, "second")).id;
  for (const l of likers) await server.post(`/api/v1/statuses/${first}/favourite`, { token: l.token });
  await follow(server, likers[0], hank);
  await follow(server, likers[1], hank);
  const mention = (await post(server, likers[2], "@hank look")).id;
  await server.post(`/api/v1/statuses/${second}/favourite`, { token: likers[0].token });

  const res = await server.get("/api/v2/notifications", { token: hank.token });
  assert.equal(res.status, 200);
  assertEntity(t, "GroupedNotificationsResults", res.body);
  const groups = res.body.notification_groups;
  assert.deepEqual(
    groups.map((g: any) => [g.type, g.notifications_count, g.sample_account_ids, g.status_id ?? null]),
    [
      ["favourite", 1, [likers[0].accountId], second],
      ["mention", 1, [likers[2].accountId], mention],
      ["follow", 2, [likers[1].accountId, likers[0].accountId], null],
      ["favourite", 3, likers.map((l) => l.accountId).reverse(), first],
    ],
  );
  const list = (await notes(hank)).body;
  assert.equal(groups[1].group_key, `ungrouped-${list[1].id}`);
  // An integer, as apps decode it, written out exactly.
  assert.match(res.text, new RegExp(`"most_recent_notification_id":${list[0].id}[,}]`));
  // A page spans from its newest to its oldest representative: the last group's older members lie
  // beyond it, on the next page.
  assert.equal(groups[3].page_max_id, list[4].id);
  assert.equal(groups[3].page_min_id, list[4].id);
  assert.equal(groups[2].page_min_id, list[3].id);
  assert.equal(groups[2].latest_page_notification_at, list[2].created_at);
  assert.deepEqual(res.body.statuses.map((s: any) => s.id).sort(), [first, second, mention].sort());
  assert.deepEqual(res.body.accounts.map((a: any) => a.id).sort(), likers.map((l) => l.accountId).sort());

  // Without grouping of favourites, each stands alone.
  const ungrouped = await server.get("/api/v2/notifications", {
    token: hank.token,
    query: { "grouped_types[]": "follow" },
  });
  assert.deepEqual(
    ungrouped.body.notification_groups.map((g: any) => [g.type, g.notifications_count]),
    [
      ["favourite", 1],
      ["mention", 1],
      ["follow", 2],
      ["favourite", 1],
      ["favourite", 1],
      ["favourite", 1],
    ],
  );

  // Two groups a page; the next page goes on below the last group's notification.
  const page1 = await server.get("/api/v2/notifications", { token: hank.token, query: { limit: "2" } });
  assert.equal(page1.body.notification_groups.length, 2);
  assert.match(page1.headers.get("link")!, new RegExp(`max_id=${list[1].id}>; rel="next"`));
  const page2 = await server.get("/api/v2/notifications", {
    token: hank.token,
    query: { limit: "2", max_id: list[1].id },
  });
  assert.deepEqual(
    page2.body.notification_groups.map((g: any) => [g.type, g.notifications_count]),
    [
      ["follow", 2],
      ["favourite", 3],
    ],
  );
  const page3 = await server.get("/api/v2/notifications", {
    token: hank.token,
    query: { limit: "2", max_id: list[6].id },
  });
  assert.deepEqual(page3.body.notification_groups, []);
  assert.equal(page3.headers.get("link"), null);

  // Partial avatars: the first account in full, the others in short.
  const partial = await server.get("/api/v2/notifications", {
    token: hank.token,
    query: { expand_accounts: "partial_avatars", "types[]": "favourite" },
  });
  assert.deepEqual(
    partial.body.accounts.map((a: any) => a.id).sort(),
    [likers[0].accountId, likers[2].accountId].sort(),
  );
  assert.deepEqual(
    partial.body.partial_accounts.map((a: any) => Object.keys(a).sort()),
    [["acct", "avatar", "avatar_static", "bot", "id", "locked", "url"]],
  );

  // One group, its accounts, and dismissing it.
  const key = groups[3].group_key;
  const one = await server.get(`/api/v2/notifications/${key}`, { token: hank.token });
  assert.equal(one.status, 200);
  assert.deepEqual(
    one.body.notification_groups.map((g: any) => [g.group_key, g.notifications_count, g.page_min_id]),
    [[key, 3, undefined]],
  );
  const accounts = await server.get(`/api/v2/notifications/${key}/accounts`, { token: hank.token });
  assert.deepEqual(
    accounts.body.map((a: any) => a.id),
    likers.map((l) => l.accountId).reverse(),
  );
  const single = await server.get(`/api/v2/notifications/ungrouped-${list[1].id}`, { token: hank.token });
  assert.equal(single.body.notification_groups[0].type, "mention");
  assert.equal((await server.get("/api/v2/notifications/favourite-1-1", { token: hank.token })).status, 404);
  // Digits beyond PostgreSQL's bigint name no notification.
  for (const key of ["ungrouped-9223372036854775808", "ungrouped-99999999999999999999"]) {
    const res = await server.get(`/api/v2/notifications/${key}`, { token: hank.token });
    assert.deepEqual([res.status, res.body], [404, { error: "Record not found" }], key);
  }
  const dismissed = await server.post(`/api/v2/notifications/${key}/dismiss`, { token: hank.token });
  assert.deepEqual([dismissed.status, dismissed.body], [200, {}]);
  assert.equal((await notes(hank)).body.length, 4);
});

test("a hide filter in the notifications context hides the notification of a matching status", async () => {
  const ivy = await server.user("ivy");
  const jon = await server.user("jon");
  await server.post("/api/v2/filters", {
    token: ivy.token,
    json: {
      title: "no spoilers",
      context: ["notifications"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "spoiler" }],
    },
  });
  await post(server, jon, "@ivy a spoiler for you");
  const kept = (await post(server, jon, "@ivy nothing to see")).id;
  assert.deepEqual(summary((await notes(ivy)).body), [["mention", jon.accountId, kept]]);
});

test("the policy filters strangers into requests, which are accepted or dismissed", async (t) => {
  const kim = await server.user("kim");
  const friend = await server.user("friend");
  const stranger = await server.user("stranger");
  const pest = await server.user("pest");
  await follow(server, kim, friend);

  const initial = await server.get("/api/v2/notifications/policy", { token: kim.token });
  assert.deepEqual(initial.body, {
    for_not_following: "accept",
    for_not_followers: "accept",
    for_new_accounts: "accept",
    for_private_mentions: "filter",
    for_limited_accounts: "filter",
    summary: { pending_requests_count: 0, pending_notifications_count: 0 },
  });
  assertEntity(t, "NotificationPolicy", initial.body);
  const bad = await server.patch("/api/v2/notifications/policy", {
    token: kim.token,
    json: { for_not_following: "maybe" },
  });
  assert.equal(bad.status, 422);
  const changed = await server.patch("/api/v2/notifications/policy", {
    token: kim.token,
    json: { for_not_following: "filter" },
  });
  assert.equal(changed.body.for_not_following, "filter");
  assert.equal(changed.body.for_private_mentions, "filter");

  const fromFriend = (await post(server, friend, "@kim hi friend")).id;
  const fromStranger = (await post(server, stranger, "@kim buy my stuff")).id;
  const again = (await post(server, stranger, "@kim still selling")).id;
  await post(server, pest, "@kim hello?");
  assert.deepEqual(summary((await notes(kim)).body), [["mention", friend.accountId, fromFriend]]);
  assert.equal((await notes(kim, { include_filtered: "true" })).body.length, 4);
  assert.equal((await notes(kim, { account_id: stranger.accountId })).body.length, 2);

  const policy = await server.get("/api/v2/notifications/policy", { token: kim.token });
  assert.deepEqual(policy.body.summary, { pending_requests_count: 2, pending_notifications_count: 3 });
  const requests = await server.get("/api/v1/notifications/requests", { token: kim.token });
  assert.deepEqual(
    requests.body.map((r: any) => [r.account.id, r.notifications_count, r.last_status?.id]),
    [
      [pest.accountId, "1", requests.body[0].last_status.id],
      [stranger.accountId, "2", again],
    ],
  );
  for (const r of requests.body) assertEntity(t, "NotificationRequest", r);
  const [pestRequest, strangerRequest] = requests.body;
  const shown = await server.get(`/api/v1/notifications/requests/${strangerRequest.id}`, { token: kim.token });
  assert.equal(shown.body.account.id, stranger.accountId);
  assert.deepEqual((await server.get("/api/v1/notifications/requests/merged", { token: kim.token })).body, {
    merged: true,
  });

  // Accepting: the filtered notifications join the list, and later ones are not filtered.
  const accepted = await server.post(`/api/v1/notifications/requests/${strangerRequest.id}/accept`, {
    token: kim.token,
  });
  assert.deepEqual([accepted.status, accepted.body], [200, {}]);
  const later = (await post(server, stranger, "@kim thanks for accepting")).id;
  assert.deepEqual(summary((await notes(kim)).body), [
    ["mention", stranger.accountId, later],
    ["mention", stranger.accountId, again],
    ["mention", stranger.accountId, fromStranger],
    ["mention", friend.accountId, fromFriend],
  ]);
  // Dismissing (in bulk): the request and its notifications go.
  const dismissed = await server.post("/api/v1/notifications/requests/dismiss", {
    token: kim.token,
    form: { "id[]": [pestRequest.id, "12345", "junk"] },
  });
  assert.equal(dismissed.status, 200);
  assert.deepEqual((await server.get("/api/v1/notifications/requests", { token: kim.token })).body, []);
  assert.equal((await notes(kim, { account_id: pest.accountId })).body.length, 0);
  assert.equal(
    (await server.get(`/api/v1/notifications/requests/${pestRequest.id}`, { token: kim.token })).status,
    404,
  );

  // Drop: nothing is recorded. (Changed by PUT, as masto.js sends it; Rails takes PUT and PATCH.)
  const put = await server.put("/api/v2/notifications/policy", {
    token: kim.token,
    json: { for_not_following: "drop" },
  });
  assert.equal(put.status, 200);
  assert.equal(put.body.for_not_following, "drop");
  assert.equal(put.body.for_not_followers, "accept");
  await post(server, pest, "@kim one more");
  assert.equal((await notes(kim, { account_id: pest.accountId })).body.length, 0);
  assert.deepEqual((await server.get("/api/v1/notifications/requests", { token: kim.token })).body, []);
});

test("unsolicited private mentions are filtered by default; replies to one's own are not", async () => {
  const lou = await server.user("lou");
  const max = await server.user("max");
  const cold = (await post(server, max, { status: "@lou psst", visibility: "direct" })).id;
  const opener = (await post(server, lou, { status: "@max shall we talk?", visibility: "direct" })).id;
  const reply = (await post(server, max, { status: "@lou sure", visibility: "direct", in_reply_to_id: opener })).id;
  assert.deepEqual(summary((await notes(lou)).body), [["mention", max.accountId, reply]]);
  assert.deepEqual(summary((await notes(lou, { include_filtered: "1" })).body), [
    ["mention", max.accountId, reply],
    ["mention", max.accountId, cold],
  ]);
});

test("scopes: reading needs read:notifications, changing needs write:notifications", async () => {
  const reader = await server.user("reader", { scopes: ["read:notifications"] });
  const other = await server.user("other", { scopes: ["read:statuses"] });
  assert.equal((await server.get("/api/v1/notifications", { token: reader.token })).status, 200);
  assert.equal((await server.get("/api/v2/notifications", { token: reader.token })).status, 200);
  assert.equal((await server.post("/api/v1/notifications/clear", { token: reader.token })).status, 403);
  assert.equal((await server.patch("/api/v2/notifications/policy", { token: reader.token, json: {} })).status, 403);
  assert.equal((await server.put("/api/v2/notifications/policy", { token: reader.token, json: {} })).status, 403);
  assert.equal((await server.get("/api/v1/notifications", { token: other.token })).status, 403);
  assert.equal((await server.get("/api/v1/notifications")).status, 401);
});

test("v2 group counts and samples leave out what the recipient's filters, blocks and visibility hide", async () => {
  const ivy = await server.user("gina_groups");
  const fans = [await server.user("gfan1"), await server.user("gfan2"), await server.user("gfan3")];
  const plain = (await post(server, ivy, "plain news")).id;
  const secret = (await post(server, ivy, "a secret recipe")).id;
  const gone = (await post(server, ivy, "soon gone")).id;
  for (const fan of fans) {
    for (const id of [plain, secret, gone]) {
      await server.post(`/api/v1/statuses/${id}/favourite`, { token: fan.token });
    }
    await follow(server, fan, ivy);
  }
  const groups = async () => {
    const res = await server.get("/api/v2/notifications", { token: ivy.token });
    assert.equal(res.status, 200, res.text);
    return res.body.notification_groups.map((g: any) => [
      g.type,
      g.status_id ?? null,
      g.notifications_count,
      g.sample_account_ids,
    ]);
  };
  const newestFirst = (list: TestUser[]) => list.map((f) => f.accountId).reverse();
  assert.deepEqual(await groups(), [
    ["follow", null, 3, newestFirst(fans)],
    ["favourite", gone, 3, newestFirst(fans)],
    ["favourite", secret, 3, newestFirst(fans)],
    ["favourite", plain, 3, newestFirst(fans)],
  ]);

  const filter = await server.post("/api/v2/filters", {
    token: ivy.token,
    json: {
      title: "secrets",
      context: ["notifications"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "secret", whole_word: true }],
    },
  });
  assert.equal(filter.status, 200, filter.text);
  await block(server, ivy, fans[1]);
  // Gone as the read path sees it, whatever the clean-up after a deletion has done yet.
  await server.rt.db.updateTable("statuses").set({ deleted_at: new Date() }).where("id", "=", gone).execute();
  await publishEvent(server.rt, "statuses.changed", { ids: [gone] });

  const kept = [fans[0], fans[2]];
  assert.deepEqual(await groups(), [
    ["follow", null, 2, newestFirst(kept)],
    ["favourite", plain, 2, newestFirst(kept)],
  ]);
  const follows = (await server.get("/api/v2/notifications", { token: ivy.token })).body.notification_groups[0];
  const one = await server.get(`/api/v2/notifications/${follows.group_key}`, { token: ivy.token });
  assert.deepEqual(
    one.body.notification_groups.map((g: any) => [g.notifications_count, g.sample_account_ids]),
    [[2, newestFirst(kept)]],
  );
  const accounts = await server.get(`/api/v2/notifications/${follows.group_key}/accounts`, { token: ivy.token });
  assert.deepEqual(
    accounts.body.map((a: any) => a.id),
    newestFirst(kept),
  );
  // v1 lists the same notifications.
  assert.deepEqual(
    (await notes(ivy)).body.map((n) => [n.type, n.account.id, n.status?.id ?? null]),
    [
      ["follow", fans[2].accountId, null],
      ["favourite", fans[2].accountId, plain],
      ["follow", fans[0].accountId, null],
      ["favourite", fans[0].accountId, plain],
    ],
  );
});

// Streaming (/api/v1/streaming): masto.js's client and raw WebSockets, SSE, tokens and scopes, the
// redirect, and a stream checked against its REST timeline for the same scenario.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createStreamingAPIClient, type mastodon } from "masto";
import { addAnnouncement, removeAnnouncement } from "../src/services/announcements/announcements.ts";
import { authenticate } from "../src/services/auth/authenticate.ts";
import { issueToken, revokeTokenById } from "../src/services/auth/tokens.ts";
import { block, follow, freshUser, insertStatus, mute, post, remoteAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";
import { EventStream, Socket, subscribed, until, wsUrl } from "./streaming_client.ts";

let server: TestServer;

before(async () => {
  server = await startServer();
});
after(() => server.close());

/** A masto.js streaming client, its events collected as they come. */
function mastoStreams(user: TestUser) {
  const client = createStreamingAPIClient({
    streamingApiUrl: server.url.replace(/^http/, "ws"),
    accessToken: user.token,
  });
  const events: mastodon.streaming.Event[] = [];
  const collect = async (sub: mastodon.streaming.Subscription) => {
    try {
      for await (const e of sub) events.push(e);
    } catch {
      // The socket closed.
    }
  };
  return { client, events, collect };
}

const ofEvent = (events: mastodon.streaming.Event[], name: string) => events.filter((e) => e.event === name);

test("masto.js: the user stream gets update, notification, status.update and delete", async (t) => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  await follow(server, bob, alice);
  const { client, events, collect } = mastoStreams(bob);
  t.after(() => client.close());
  void collect(client.user.subscribe());
  await subscribed(server, 1);

  const status = await post(server, alice, { status: `hello @${bob.username}` });
  await until(() => ofEvent(events, "update").length === 1 && ofEvent(events, "notification").length === 1);
  const update = ofEvent(events, "update")[0] as mastodon.streaming.UpdateEvent;
  assert.deepEqual(update.stream, ["user"]);
  assert.equal(update.payload.id, status.id);
  assert.equal(update.payload.account.acct, alice.username);
  assert.equal(update.payload.favourited, false);
  const notification = ofEvent(events, "notification")[0] as mastodon.streaming.NotificationEvent;
  assert.equal(notification.payload.type, "mention");
  assert.equal(notification.payload.status?.id, status.id);

  const edited = await server.put(`/api/v1/statuses/${status.id}`, {
    token: alice.token,
    json: { status: `hello again @${bob.username}` },
  });
  assert.equal(edited.status, 200);
  await until(() => ofEvent(events, "status.update").length === 1);
  const change = ofEvent(events, "status.update")[0] as mastodon.streaming.StatusUpdateEvent;
  assert.equal(change.payload.id, status.id);
  assert.match(change.payload.content, /hello again/);
  assert.notEqual(change.payload.editedAt, null);

  assert.equal((await server.delete(`/api/v1/statuses/${status.id}`, { token: alice.token })).status, 200);
  await until(() => ofEvent(events, "delete").length === 1);
  assert.equal((ofEvent(events, "delete")[0] as mastodon.streaming.DeleteEvent).payload, status.id);
  client.close();
  await subscribed(server, 0);
});

test("masto.js: public:local, hashtag and list streams on one socket, each event naming its stream", async (t) => {
  const alice = await freshUser(server, "alice");
  const reader = await freshUser(server, "reader");
  await follow(server, reader, alice);
  const list = await server.post("/api/v1/lists", { token: reader.token, json: { title: "friends" } });
  await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
    token: reader.token,
    json: { account_ids: [alice.accountId] },
  });
  const { client, events, collect } = mastoStreams(reader);
  t.after(() => client.close());
  void collect(client.public.local.subscribe());
  void collect(client.hashtag.subscribe({ tag: "Rookery" }));
  void collect(client.list.subscribe({ list: list.body.id }));
  await subscribed(server, 3);

  const tagged = await post(server, alice, "streams are live #Rookery");
  await until(() => ofEvent(events, "update").length === 3);
  const streams = ofEvent(events, "update").map((e) => e.stream.join(" "));
  assert.deepEqual(streams.sort(), ["hashtag Rookery", `list ${list.body.id}`, "public:local"]);
  for (const e of ofEvent(events, "update")) assert.equal((e as mastodon.streaming.UpdateEvent).payload.id, tagged.id);

  const untagged = await post(server, alice, { status: "followers only", visibility: "private" });
  await until(() => ofEvent(events, "update").length === 4);
  const last = ofEvent(events, "update")[3] as mastodon.streaming.UpdateEvent;
  assert.deepEqual([last.stream, last.payload.id], [["list", list.body.id], untagged.id]);
  client.close();
  await subscribed(server, 0);
});

test("WebSocket: subscribe and unsubscribe by message, tokens by protocol and query, errors", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  await follow(server, bob, alice);
  const socket = await Socket.open(wsUrl(server), { protocol: bob.token });
  assert.equal(socket.ws.protocol, bob.token, "the subprotocol is echoed, as browsers require");
  socket.send({ type: "subscribe", stream: "user" });
  socket.send({ type: "subscribe", stream: "public:local" });
  await subscribed(server, 2);
  const first = await post(server, alice, "to both");
  await until(() => socket.events("update").length === 2);
  assert.deepEqual(
    socket
      .events("update")
      .map((f) => f.stream![0])
      .sort(),
    ["public:local", "user"],
  );
  // The payload is the very entity the REST timeline gives the same viewer.
  const home = await server.get("/api/v1/timelines/home", { token: bob.token });
  assert.deepEqual(JSON.parse(socket.events("update", "user")[0].payload!), home.body[0]);
  assert.equal(home.body[0].id, first.id);

  socket.send({ type: "unsubscribe", stream: "public:local" });
  await subscribed(server, 1);
  const second = await post(server, alice, "to the user stream only");
  await socket.next("update", (f) => JSON.parse(f.payload!).id === second.id);
  await post(server, alice, "a third, so that anything late arrives first");
  await until(() => socket.events("update").length === 4);
  assert.deepEqual(
    socket
      .events("update")
      .map((f) => [f.stream![0], JSON.parse(f.payload!).id])
      .slice(2, 3),
    [["user", second.id]],
  );

  socket.send({ type: "subscribe", stream: "nonsense" });
  assert.deepEqual(await socket.next("", (f) => f.error === "Unknown stream type"), {
    error: "Unknown stream type",
    status: 400,
  });
  const othersList = await server.post("/api/v1/lists", { token: alice.token, json: { title: "mine" } });
  socket.send({ type: "subscribe", stream: "list", list: othersList.body.id });
  await socket.next("", (f) => f.error === "Not authorized to stream this list");
  socket.send({ type: "subscribe", stream: "hashtag" });
  await socket.next("", (f) => f.error === "No tag for stream provided");
  socket.close();

  // The legacy access_token parameter, with the stream in the URL.
  const legacy = await Socket.open(wsUrl(server, `?access_token=${bob.token}&stream=user:notification`));
  await subscribed(server, 1);
  await post(server, alice, `@${bob.username} ping`);
  const n = await legacy.next("notification");
  assert.deepEqual(n.stream, ["user:notification"]);
  const notifications = await server.get("/api/v1/notifications", { token: bob.token });
  assert.deepEqual(JSON.parse(n.payload!), notifications.body[0]);
  assert.equal(legacy.events("update").length, 0, "user:notification carries notifications only");
  legacy.close();
  await subscribed(server, 0);
});

test("scopes: without read:notifications the user stream carries no notifications", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  await follow(server, bob, alice);
  const auth = await authenticate(server.rt, bob.token);
  const narrow = await issueToken(server.rt, {
    applicationId: auth!.applicationId!,
    userId: bob.userId,
    scopes: ["read:statuses"],
  });
  const socket = await Socket.open(wsUrl(server, "?stream=user"), { token: narrow.token });
  socket.send({ type: "subscribe", stream: "user:notification" });
  await socket.next("", (f) => f.error === "Access token does not have the required scopes");
  await subscribed(server, 1);
  const status = await post(server, alice, `@${bob.username} hi`);
  await socket.next("update", (f) => JSON.parse(f.payload!).id === status.id);
  await post(server, alice, "and one more");
  await until(() => socket.events("update").length === 2);
  assert.equal(socket.events("notification").length, 0);
  socket.close();
  await subscribed(server, 0);
});

test("bad tokens are refused at the upgrade with 401; a revoked token's sockets close", async () => {
  await assert.rejects(Socket.open(wsUrl(server), { token: "not-a-token" }), /HTTP 401/);
  await assert.rejects(Socket.open(wsUrl(server, "?access_token=nope")), /HTTP 401/);
  await assert.rejects(Socket.open(wsUrl(server), { protocol: "nope" }), /HTTP 401/);
  const writer = await freshUser(server, "writer", { scopes: ["write"] });
  await assert.rejects(Socket.open(wsUrl(server), { token: writer.token }), /HTTP 401/);
  const sse = await server.get("/api/v1/streaming/user", { token: "not-a-token" });
  assert.equal(sse.status, 401);
  assert.equal(sse.body.error, "The access token is invalid");

  const carol = await freshUser(server, "carol");
  const socket = await Socket.open(wsUrl(server, "?stream=user"), { token: carol.token });
  const events = await EventStream.open(server, "/api/v1/streaming/user", carol.token);
  await subscribed(server, 2);
  const auth = await authenticate(server.rt, carol.token);
  await revokeTokenById(server.rt, auth!.tokenId);
  await until(() => socket.closed, 5000, "the socket to close");
  await subscribed(server, 0);
  events.close();
});

test("SSE: one stream per response, with the REST entity as data; health; unknown channels", async () => {
  const health = await server.get("/api/v1/streaming/health");
  assert.deepEqual([health.status, health.text], [200, "OK"]);
  const unknown = await server.get("/api/v1/streaming/nonsense", { token: (await freshUser(server, "x")).token });
  assert.deepEqual([unknown.status, unknown.body], [400, { error: "Unknown channel requested" }]);
  // A list id beyond PostgreSQL's bigint is no list of the caller's, as an unknown one.
  for (const list of ["9223372036854775808", "99999999999999999999", "0", "12a"]) {
    const res = await server.get("/api/v1/streaming/list", {
      token: (await freshUser(server, "y")).token,
      query: { list },
    });
    assert.deepEqual([res.status, res.body], [401, { error: "Not authorized to stream this list" }], list);
  }

  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  await follow(server, bob, alice);
  const user = await EventStream.open(server, "/api/v1/streaming/user", bob.token);
  const local = await EventStream.open(server, "/api/v1/streaming/public/local", bob.token);
  const tag = await EventStream.open(server, "/api/v1/streaming/hashtag?tag=sse", bob.token);
  await subscribed(server, 3);
  const status = await post(server, alice, `@${bob.username} over SSE #sse`);
  await until(() => user.events.length === 2 && local.events.length === 1 && tag.events.length === 1);
  assert.deepEqual(user.events.map((e) => e.event).sort(), ["notification", "update"]);
  for (const e of [...user.events.filter((e) => e.event === "update"), ...local.events, ...tag.events]) {
    assert.equal(e.event, "update");
    assert.equal(JSON.parse(e.data).id, status.id);
  }
  const filter = await server.post("/api/v2/filters", {
    token: bob.token,
    json: { title: "f", context: ["home"], keywords_attributes: [{ keyword: "zzz" }] },
  });
  assert.equal(filter.status, 200);
  await until(() => user.events.some((e) => e.event === "filters_changed"));
  // Comments end with one newline, as Mastodon's: no blank line outside an event.
  assert.deepEqual(
    [user, local, tag].map((s) => s.blankLines),
    [0, 0, 0],
  );
  for (const s of [user, local, tag]) s.close();
  await subscribed(server, 0);
});

test("announcements: announcement, announcement.reaction and announcement.delete on every user stream", async (t) => {
  const carol = await freshUser(server, "carol");
  const dan = await freshUser(server, "dan");
  const socket = await Socket.open(wsUrl(server, "?stream=user"), { token: carol.token });
  // Only `user`: not `user:notification`, not public streams.
  const other = await Socket.open(wsUrl(server, "?stream=user:notification"), { token: carol.token });
  const sse = await EventStream.open(server, "/api/v1/streaming/user", dan.token);
  t.after(() => {
    socket.close();
    other.close();
    sse.close();
  });
  await subscribed(server, 3);

  const added = await addAnnouncement(server.rt, { text: "Maintenance tonight #ops" });
  const published = await socket.next("announcement");
  assert.deepEqual(published.stream, ["user"]);
  const entity = JSON.parse(published.payload!);
  const rest = await server.get("/api/v1/announcements", { token: carol.token });
  assert.deepEqual(
    entity,
    rest.body.find((a: { id: string }) => a.id === added.id),
  );
  assert.equal(entity.read, false);

  const react = await server.put(`/api/v1/announcements/${added.id}/reactions/${encodeURIComponent("👍")}`, {
    token: dan.token,
  });
  assert.equal(react.status, 200);
  const reaction = await socket.next("announcement.reaction");
  assert.deepEqual(JSON.parse(reaction.payload!), { name: "👍", count: 1, announcement_id: added.id });
  await server.delete(`/api/v1/announcements/${added.id}/reactions/${encodeURIComponent("👍")}`, { token: dan.token });
  await socket.next("announcement.reaction", (f) => JSON.parse(f.payload!).count === 0);

  await removeAnnouncement(server.rt, added.id);
  const removed = await socket.next("announcement.delete");
  assert.equal(removed.payload, added.id);

  await until(() => sse.events.length === 4, 5000, "the SSE events");
  assert.deepEqual(
    sse.events.map((e) => e.event),
    ["announcement", "announcement.reaction", "announcement.reaction", "announcement.delete"],
  );
  assert.equal(JSON.parse(sse.events[0].data).id, added.id);
  assert.equal(sse.events[3].data, added.id);
  assert.deepEqual(
    other.frames.filter((f) => f.event?.startsWith("announcement")),
    [],
  );

  // A scheduled one is told when its time comes (the job the schedule made).
  const later = await addAnnouncement(server.rt, { text: "Later", publishAt: new Date(Date.now() + 3600_000) });
  await server.rt.db
    .updateTable("announcements")
    .set({ published_at: new Date(Date.now() - 1000) })
    .where("id", "=", later.id)
    .execute();
  await server.rt.db
    .updateTable("jobs")
    .set({ run_at: new Date() })
    .where("type", "=", "announcements.publish")
    .execute();
  server.rt.queue.wake();
  const scheduled = await socket.next("announcement", (f) => JSON.parse(f.payload!).id === later.id);
  assert.equal(JSON.parse(scheduled.payload!).content, "<p>Later</p>");
});

test("direct: a conversation event for each participant listening", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  // Private mentions from strangers are held back by the default notification policy.
  await follow(server, bob, alice);
  const socket = await Socket.open(wsUrl(server, "?stream=direct"), { token: bob.token });
  await subscribed(server, 1);
  const dm = await post(server, alice, { status: `@${bob.username} psst`, visibility: "direct" });
  const frame = await socket.next("conversation");
  const rest = await server.get("/api/v1/conversations", { token: bob.token });
  assert.deepEqual(JSON.parse(frame.payload!), rest.body[0]);
  assert.equal(rest.body[0].last_status.id, dm.id);
  socket.close();
  await subscribed(server, 0);
});

test("a quote of a followers-only post reaches each stream as that viewer's REST answer shows it", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const carol = await freshUser(server, "carol");
  await follow(server, bob, alice);
  const secret = await post(server, alice, { status: "for followers", visibility: "private" });
  // carol, who may not see the quoted post, listens first: her rendering must not be bob's, nor his hers.
  const stranger = await Socket.open(wsUrl(server, "?stream=public:local"), { token: carol.token });
  await subscribed(server, 1);
  const follower = await Socket.open(wsUrl(server), { token: bob.token });
  follower.send({ type: "subscribe", stream: "user" });
  follower.send({ type: "subscribe", stream: "public:local" });
  await subscribed(server, 3);
  const quoting = await post(server, alice, { status: "look", quoted_status_id: secret.id });
  await until(() => follower.events("update").length === 2 && stranger.events("update").length === 1);
  const asBob = (await server.get(`/api/v1/statuses/${quoting.id}`, { token: bob.token })).body;
  const asCarol = (await server.get(`/api/v1/statuses/${quoting.id}`, { token: carol.token })).body;
  assert.equal(asBob.quote.state, "accepted");
  assert.equal(asBob.quote.quoted_status.id, secret.id);
  assert.deepEqual(asCarol.quote, { state: "unauthorized", quoted_status: null });
  for (const frame of follower.events("update")) assert.deepEqual(JSON.parse(frame.payload!).quote, asBob.quote);
  assert.deepEqual(JSON.parse(stranger.events("update")[0].payload!).quote, asCarol.quote);
  stranger.close();
  follower.close();
  await subscribed(server, 0);
});

test("the streams show what the REST timelines show, for the same scenario", async () => {
  const reader = await freshUser(server, "reader");
  const [alice, muted, listed, stranger, blocker] = await Promise.all(
    ["alice", "muted", "listed", "stranger", "blocker"].map((n) => freshUser(server, n)),
  );
  for (const u of [alice, muted, listed]) await follow(server, reader, u);
  await mute(server, reader, muted);
  await block(server, blocker, reader);
  const list = await server.post("/api/v1/lists", { token: reader.token, json: { title: "own", exclusive: true } });
  await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
    token: reader.token,
    json: { account_ids: [listed.accountId] },
  });
  await server.post("/api/v2/filters", {
    token: reader.token,
    json: {
      title: "hide",
      context: ["home", "public"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "secret" }],
    },
  });
  await server.post("/api/v2/filters", {
    token: reader.token,
    json: {
      title: "warn",
      context: ["home", "public"],
      filter_action: "warn",
      keywords_attributes: [{ keyword: "spoiler" }],
    },
  });
  await server.post("/api/v1/domain_blocks", { token: reader.token, json: { domain: "blocked.example" } });
  const farAway = await remoteAccount(server, "far", "ok.example");
  const blockedDomain = await remoteAccount(server, "far", "blocked.example");

  const streams = ["user", "public", "public:local", "public:remote"];
  const socket = await Socket.open(wsUrl(server), { token: reader.token });
  for (const stream of streams) socket.send({ type: "subscribe", stream });
  socket.send({ type: "subscribe", stream: "list", list: list.body.id });
  await subscribed(server, streams.length + 1);

  const mutedPost = await post(server, muted, "from a muted account");
  const strangerRoot = (await post(server, stranger, "not followed")).id;
  const posted = [
    (await post(server, alice, "plain")).id,
    (await post(server, alice, "a secret")).id,
    (await post(server, alice, "a spoiler")).id,
    (await post(server, alice, { status: "followers only", visibility: "private" })).id,
    (await post(server, alice, { status: "quiet", visibility: "unlisted" })).id,
    mutedPost.id,
    (await post(server, listed, "in an exclusive list")).id,
    strangerRoot,
    (await post(server, stranger, { status: "not followed, private", visibility: "private" })).id,
    (await post(server, alice, { status: `@${stranger.username} a reply`, in_reply_to_id: strangerRoot })).id,
    (await post(server, blocker, "blocks the reader")).id,
  ];
  const boost = await server.post(`/api/v1/statuses/${mutedPost.id}/reblog`, { token: alice.token });
  posted.push(boost.body.id);
  for (const account of [farAway, blockedDomain]) {
    const id = await insertStatus(server, account, { local: false });
    await server.rt.queue.enqueue("feeds.fanout", { statusId: id });
    posted.push(id);
  }
  const marker = (await post(server, alice, "the end")).id;
  await server.settle();
  // Each stream is rendered on its own, so each must have caught up with the last post.
  for (const stream of ["user", "public", "public:local"]) {
    await until(() => socket.events("update", stream).some((f) => JSON.parse(f.payload!).id === marker));
  }

  const restPaths: Record<string, string> = {
    user: "/api/v1/timelines/home",
    public: "/api/v1/timelines/public",
    "public:local": "/api/v1/timelines/public?local=true",
    "public:remote": "/api/v1/timelines/public?remote=true",
    list: `/api/v1/timelines/list/${list.body.id}`,
  };
  const scenario = new Set(posted);
  for (const [stream, path] of Object.entries(restPaths)) {
    const rest = await server.get(path, { token: reader.token, query: { limit: "40" } });
    const expected = (rest.body as { id: string; filtered: unknown }[]).filter((s) => scenario.has(s.id));
    const got = socket
      .events("update", stream)
      .map((f) => JSON.parse(f.payload!))
      .filter((s: { id: string }) => scenario.has(s.id))
      .reverse();
    assert.deepEqual(
      got.map((s: { id: string }) => s.id),
      expected.map((s) => s.id),
      `${stream}: the stream holds what ${path} holds`,
    );
    assert.deepEqual(
      got.map((s: { filtered: unknown }) => s.filtered),
      expected.map((s) => s.filtered),
      `${stream}: filter results as REST shows them`,
    );
    assert.ok(expected.length > 0, `${stream}: the scenario shows something`);
  }
  // Spot checks on the scenario itself, so that the comparison compares something.
  const home = socket.events("update", "user").map((f) => JSON.parse(f.payload!).content as string);
  assert.ok(home.some((c) => c.includes("a spoiler")));
  assert.ok(!home.some((c) => c.includes("a secret") || c.includes("muted") || c.includes("exclusive")));
  socket.close();
  await subscribed(server, 0);
});

test("STREAMING_URL: instance reports it, /api/v1/streaming redirects there; without public preview, no anonymous sockets", async () => {
  const own = await server.get("/api/v2/instance");
  assert.equal(own.body.configuration.urls.streaming, server.url.replace(/^http/, "ws"));
  assert.equal((await server.get("/api/v1/instance")).body.urls.streaming_api, server.url.replace(/^http/, "ws"));
  assert.equal((await server.get("/api/v1/streaming")).status, 404, "served here: nothing to redirect to");

  const other = await startServer({ env: { STREAMING_URL: "wss://stream.example.test", PUBLIC_PREVIEW: "false" } });
  try {
    assert.equal((await other.get("/api/v2/instance")).body.configuration.urls.streaming, "wss://stream.example.test");
    assert.equal((await other.get("/api/v1/instance")).body.urls.streaming_api, "wss://stream.example.test");
    const redirect = await other.get("/api/v1/streaming/public?only_media=true");
    assert.equal(redirect.status, 301);
    assert.equal(
      redirect.headers.get("location"),
      "http://stream.example.test/api/v1/streaming/public?only_media=true",
    );
    assert.equal((await other.get("/api/v1/streaming")).status, 301);
    await assert.rejects(Socket.open(wsUrl(other, "?stream=public")), /HTTP 401/);
  } finally {
    await other.close();
  }
  // With public preview (the default), anyone may listen to the public streams, and only to them.
  const anonymous = await Socket.open(wsUrl(server, "?stream=public:local"));
  anonymous.send({ type: "subscribe", stream: "user" });
  await anonymous.next("", (f) => f.error === "Missing access token");
  await subscribed(server, 1);
  const alice = await freshUser(server, "alice");
  const status = await post(server, alice, "for everyone");
  const frame = await anonymous.next("update");
  const rest = await server.get("/api/v1/timelines/public", { query: { local: "true" } });
  assert.deepEqual(JSON.parse(frame.payload!), rest.body[0]);
  assert.equal(rest.body[0].id, status.id);
  anonymous.close();
  await subscribed(server, 0);
});

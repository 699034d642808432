// Direct conversations: one per thread and set of participants for each of them, unread until read.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { block, follow, mute, post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

interface Conversation {
  id: string;
  unread: boolean;
  accounts: { id: string }[];
  last_status: { id: string } | null;
}

const direct = async (user: TestUser, status: string, extra: Record<string, unknown> = {}): Promise<string> =>
  (await post(server, user, { status, visibility: "direct", ...extra })).id;

async function conversationsOf(user: TestUser, query: Record<string, string> = {}) {
  // Conversations are updated by a job after the post.
  await server.settle();
  const res = await server.get<Conversation[]>("/api/v1/conversations", { token: user.token, query });
  assert.equal(res.status, 200, res.text);
  return res;
}

const summary = (list: Conversation[]) =>
  list.map((c) => [c.accounts.map((a) => a.id), c.last_status?.id ?? null, c.unread]);

test("a direct message starts a conversation on both sides; replies move it and mark it unread", async (t) => {
  const alice = await server.user("alice");
  const bob = await server.user("bob");
  // Private mentions from strangers are filtered by default: recipients follow the senders first.
  await follow(server, bob, alice);
  await follow(server, alice, bob);
  const first = await direct(alice, "@bob psst");

  const bobs = (await conversationsOf(bob)).body;
  assert.deepEqual(summary(bobs), [[[alice.accountId], first, true]]);
  assertEntity(t, "Conversation", bobs[0]);
  assert.deepEqual(summary((await conversationsOf(alice)).body), [[[bob.accountId], first, false]]);

  const reply = await direct(bob, "@alice what?", { in_reply_to_id: first });
  assert.deepEqual(summary((await conversationsOf(alice)).body), [[[bob.accountId], reply, true]]);
  assert.deepEqual(summary((await conversationsOf(bob)).body), [[[alice.accountId], reply, false]]);

  const alices = (await conversationsOf(alice)).body;
  const read = await server.post(`/api/v1/conversations/${alices[0].id}/read`, { token: alice.token });
  assert.equal(read.status, 200);
  assert.deepEqual(summary([read.body]), [[[bob.accountId], reply, false]]);
  assert.equal((await conversationsOf(alice)).body[0].unread, false);

  // Someone else's conversation is not found.
  assert.equal((await server.post(`/api/v1/conversations/${alices[0].id}/read`, { token: bob.token })).status, 404);
  assert.equal((await server.delete(`/api/v1/conversations/${alices[0].id}`, { token: bob.token })).status, 404);
  assert.equal((await server.post("/api/v1/conversations/nonsense/read", { token: alice.token })).status, 404);

  // Deleting it hides it until a new message in it arrives.
  const removed = await server.delete(`/api/v1/conversations/${alices[0].id}`, { token: alice.token });
  assert.deepEqual([removed.status, removed.body], [200, {}]);
  assert.deepEqual((await conversationsOf(alice)).body, []);
  const more = await direct(bob, "@alice hello again", { in_reply_to_id: reply });
  assert.deepEqual(summary((await conversationsOf(alice)).body), [[[bob.accountId], more, true]]);
});

test("deleting statuses moves the conversation back, and deleting all of them ends it", async () => {
  const carol = await server.user("carol");
  const dave = await server.user("dave");
  await follow(server, dave, carol);
  const first = await direct(carol, "@dave one");
  const second = await direct(carol, "@dave two", { in_reply_to_id: first });
  assert.deepEqual(summary((await conversationsOf(dave)).body), [[[carol.accountId], second, true]]);
  await server.delete(`/api/v1/statuses/${second}`, { token: carol.token });
  assert.deepEqual(summary((await conversationsOf(dave)).body), [[[carol.accountId], first, true]]);
  assert.deepEqual(summary((await conversationsOf(carol)).body), [[[dave.accountId], first, false]]);
  await server.delete(`/api/v1/statuses/${first}`, { token: carol.token });
  assert.deepEqual((await conversationsOf(dave)).body, []);
  assert.deepEqual((await conversationsOf(carol)).body, []);
});

test("only direct statuses make conversations, and not for those who block or mute the author", async () => {
  const erin = await server.user("erin");
  const frank = await server.user("frank");
  const gina = await server.user("gina");
  const hank = await server.user("hank");
  await follow(server, frank, erin);
  for (const visibility of ["public", "unlisted", "private"]) {
    await server.post("/api/v1/statuses", { token: erin.token, json: { status: "@frank hi", visibility } });
  }
  assert.deepEqual((await conversationsOf(frank)).body, []);
  assert.deepEqual((await conversationsOf(erin)).body, []);

  await block(server, gina, erin);
  await mute(server, hank, erin);
  const group = await direct(erin, "@frank @gina @hank a group message");
  assert.deepEqual((await conversationsOf(gina)).body, []);
  assert.deepEqual((await conversationsOf(hank)).body, []);
  // Everyone on the message is a participant, whoever reads it.
  assert.deepEqual(summary((await conversationsOf(frank)).body), [
    [[erin.accountId, gina.accountId, hank.accountId].sort(), group, true],
  ]);
  assert.deepEqual(summary((await conversationsOf(erin)).body), [
    [[frank.accountId, gina.accountId, hank.accountId].sort(), group, false],
  ]);
});

test("a message to oneself shows oneself; conversations page by their latest status", async () => {
  const ivy = await server.user("ivy");
  const friends = [await server.user("j1"), await server.user("j2"), await server.user("j3")];
  const own = await direct(ivy, "a note to self");
  assert.deepEqual(summary((await conversationsOf(ivy)).body), [[[ivy.accountId], own, false]]);
  const latest: string[] = [];
  for (const f of friends) {
    await follow(server, ivy, f);
    latest.push(await direct(f, "@ivy hey"));
  }

  const page1 = await conversationsOf(ivy, { limit: "2" });
  assert.deepEqual(
    page1.body.map((c) => c.last_status?.id),
    [latest[2], latest[1]],
  );
  assert.match(page1.headers.get("link")!, new RegExp(`max_id=${latest[1]}>; rel="next"`));
  const page2 = await conversationsOf(ivy, { limit: "2", max_id: latest[1] });
  assert.deepEqual(
    page2.body.map((c) => c.last_status?.id),
    [latest[0], own],
  );
  const page3 = await conversationsOf(ivy, { limit: "2", max_id: own });
  assert.deepEqual(page3.body, []);
  assert.equal(page3.headers.get("link"), null);
});

test("unsolicited private mentions join the conversations once their request is accepted", async () => {
  const kim = await server.user("kim");
  const stranger = await server.user("stranger");
  await server.patch("/api/v2/notifications/policy", { token: kim.token, json: { for_private_mentions: "filter" } });
  const cold = await direct(stranger, "@kim hello there");
  assert.deepEqual((await conversationsOf(kim)).body, []);
  const [request] = (await server.get("/api/v1/notifications/requests", { token: kim.token })).body;
  await server.post(`/api/v1/notifications/requests/${request.id}/accept`, { token: kim.token });
  assert.deepEqual(summary((await conversationsOf(kim)).body), [[[stranger.accountId], cold, true]]);
});

test("scopes: listing needs read:statuses, changing needs write:conversations", async () => {
  const reader = await server.user("reader", { scopes: ["read:statuses"] });
  assert.equal((await conversationsOf(reader)).body.length, 0);
  assert.equal((await server.post("/api/v1/conversations/1/read", { token: reader.token })).status, 403);
  assert.equal((await server.get("/api/v1/conversations")).status, 401);
  assert.equal((await server.get("/api/v1/timelines/direct", { token: reader.token })).status, 404);
});

test("the job that notifies mentions and updates conversations may run twice", async () => {
  const ida = await server.user("ida");
  const jon = await server.user("jon");
  await follow(server, jon, ida);
  const id = await direct(ida, "@jon once");
  await server.rt.queue.enqueue("statuses.notify_mentioned", {
    statusId: id,
    mentioned: [jon.accountId],
    created: true,
  });
  await server.settle();
  assert.deepEqual(summary((await conversationsOf(jon)).body), [[[ida.accountId], id, true]]);
  assert.deepEqual(summary((await conversationsOf(ida)).body), [[[jon.accountId], id, false]]);
  const mentions = await server.get("/api/v1/notifications", { token: jon.token, query: { "types[]": "mention" } });
  assert.deepEqual(
    mentions.body.map((n: { status: { id: string } }) => n.status.id),
    [id],
  );
});

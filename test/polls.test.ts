// Polls: made with statuses, voted in, ended by a job that tells everyone involved.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { follow, post } from "./fixtures.ts";
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

const poll = (extra: Record<string, unknown> = {}) => ({
  options: ["Tea", "Coffee", "Water"],
  expires_in: 600,
  ...extra,
});

test("a poll comes with its status, from form-encoded or JSON bodies", async (t) => {
  const form = await server.post("/api/v1/statuses", {
    token: alice.token,
    form: {
      status: "Drink?",
      "poll[options][]": ["Tea", "Coffee"],
      "poll[expires_in]": "300",
      "poll[multiple]": "true",
    },
  });
  assert.equal(form.status, 200);
  assertEntity(t, "Poll", form.body.poll);
  assert.deepEqual(form.body.poll.options, [
    { title: "Tea", votes_count: 0 },
    { title: "Coffee", votes_count: 0 },
  ]);
  assert.equal(form.body.poll.multiple, true);
  assert.equal(form.body.poll.expired, false);
  assert.ok(Math.abs(new Date(form.body.poll.expires_at).getTime() - Date.now() - 300_000) < 10_000);
  const json = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: { status: "Pick", poll: poll({ hide_totals: true }) },
  });
  assert.equal(json.body.poll.options.length, 3);
});

test("invalid polls are refused with Mastodon's reasons", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [poll({ options: ["Only"] }), /more than one item/],
    [poll({ options: ["a", "b", "c", "d", "e"] }), /more than 4 items/],
    [poll({ options: ["a", "x".repeat(51)] }), /longer than 50 characters/],
    [poll({ options: ["a", "a"] }), /duplicate/],
    [poll({ expires_in: 60 }), /too soon/],
    [poll({ expires_in: 3_000_000 }), /too far into the future/],
  ];
  for (const [p, error] of cases) {
    const res = await server.post("/api/v1/statuses", { token: alice.token, json: { status: "?", poll: p } });
    assert.equal(res.status, 422, JSON.stringify(p));
    assert.match(res.body.error, error);
  }
});

test("voting: once, valid choices, not in one's own poll, hidden totals", async () => {
  const s = await post(server, alice, { status: "Vote", poll: poll({ hide_totals: true }) });
  const id = s.poll.id;
  const voted = await server.post(`/api/v1/polls/${id}/votes`, { token: bob.token, form: { "choices[]": "1" } });
  assert.equal(voted.status, 200);
  assert.equal(voted.body.voted, true);
  assert.deepEqual(voted.body.own_votes, [1]);
  assert.equal(voted.body.votes_count, 1);
  assert.equal(voted.body.options[1].votes_count, null, "totals hidden until the end");
  const again = await server.post(`/api/v1/polls/${id}/votes`, { token: bob.token, json: { choices: [0] } });
  assert.equal(again.status, 422);
  assert.match(again.body.error, /already voted/);
  assert.equal(
    (await server.post(`/api/v1/polls/${id}/votes`, { token: carol.token, json: { choices: [0, 1] } })).status,
    422,
    "single choice",
  );
  assert.equal(
    (await server.post(`/api/v1/polls/${id}/votes`, { token: carol.token, json: { choices: [7] } })).status,
    422,
  );
  const own = await server.post(`/api/v1/polls/${id}/votes`, { token: alice.token, json: { choices: [0] } });
  assert.equal(own.status, 422);
  const mine = await server.get(`/api/v1/polls/${id}`, { token: alice.token });
  assert.deepEqual(
    mine.body.options.map((o: any) => o.votes_count),
    [null, null, null],
    "hidden from the author too until the end, as in Mastodon",
  );
  assert.equal(
    (await server.get(`/api/v1/statuses/${s.id}`, { token: alice.token })).body.poll.options[1].votes_count,
    null,
  );
  const anon = await server.get(`/api/v1/polls/${id}`);
  assert.equal(anon.status, 200);
  assert.equal(anon.body.voted, undefined);
  assert.equal((await server.get(`/api/v1/statuses/${s.id}`, { token: bob.token })).body.poll.own_votes[0], 1);
});

test("a poll shows to whoever may open its status, and is not found by anyone else", async () => {
  const unlisted = (
    await server.post("/api/v1/statuses", {
      token: alice.token,
      json: { status: "quiet", visibility: "unlisted", poll: poll() },
    })
  ).body;
  const anon = await server.get(`/api/v1/polls/${unlisted.poll.id}`);
  assert.equal(anon.status, 200);
  assert.equal(anon.body.id, unlisted.poll.id);
  const s = (
    await server.post("/api/v1/statuses", {
      token: alice.token,
      json: { status: "secret", visibility: "private", poll: poll() },
    })
  ).body;
  assert.deepEqual((await server.get(`/api/v1/polls/${s.poll.id}`)).body, { error: "Record not found" });
  assert.equal((await server.get(`/api/v1/polls/${s.poll.id}`)).status, 404);
  const vote = await server.post(`/api/v1/polls/${s.poll.id}/votes`, { token: carol.token, json: { choices: [0] } });
  assert.equal(vote.status, 404);
  assert.equal((await server.get(`/api/v1/polls/${s.poll.id}`, { token: carol.token })).status, 404);
  await follow(server, carol, alice);
  assert.equal((await server.get(`/api/v1/polls/${s.poll.id}`, { token: carol.token })).status, 200);
});

test("at its end the poll closes, shows its totals, and notifies the author and every voter", async () => {
  const s = await post(server, alice, { status: "Ends soon", poll: poll({ multiple: true, hide_totals: true }) });
  await server.post(`/api/v1/polls/${s.poll.id}/votes`, { token: bob.token, json: { choices: [0, 2] } });
  await server.post(`/api/v1/polls/${s.poll.id}/votes`, { token: carol.token, json: { choices: [2] } });
  // Let time pass: the poll and its job are due now.
  await server.rt.db
    .updateTable("polls")
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where("id", "=", s.poll.id)
    .execute();
  await server.rt.db.updateTable("jobs").set({ run_at: new Date() }).where("type", "=", "polls.expire").execute();
  server.rt.queue.wake();
  await server.settle();
  const ended = await server.get(`/api/v1/polls/${s.poll.id}`, { token: carol.token });
  assert.equal(ended.body.expired, true);
  assert.deepEqual(
    ended.body.options.map((o: { votes_count: number }) => o.votes_count),
    [1, 0, 2],
  );
  assert.equal(ended.body.votes_count, 3);
  assert.equal(ended.body.voters_count, 2);
  const late = await server.post(`/api/v1/polls/${s.poll.id}/votes`, {
    token: server.rt ? (await server.user("late")).token : "",
    json: { choices: [0] },
  });
  assert.equal(late.status, 422);
  assert.match(late.body.error, /already ended/);
  const notified = await server.rt.db
    .selectFrom("notifications")
    .select("account_id")
    .where("type", "=", "poll")
    .where("status_id", "=", s.id)
    .orderBy("account_id")
    .execute();
  assert.deepEqual(notified.map((n) => n.account_id).sort(), [alice.accountId, bob.accountId, carol.accountId].sort());
});

test("the edit history keeps each version's poll options, as Mastodon's StatusEdit does", async (t) => {
  const s = await post(server, alice, { status: "Drinks?", poll: poll() });
  const titles = async () =>
    (await server.get(`/api/v1/statuses/${s.id}/history`)).body.map((v: any) =>
      v.poll === null ? null : v.poll.options.map((o: any) => o.title),
    );
  assert.deepEqual(await titles(), [["Tea", "Coffee", "Water"]]);
  const text = await server.put(`/api/v1/statuses/${s.id}`, { token: alice.token, json: { status: "Drinks, then?" } });
  assert.equal(text.status, 200);
  const changed = await server.put(`/api/v1/statuses/${s.id}`, {
    token: alice.token,
    json: { status: "Drinks, then?", poll: { options: ["Juice", "Milk"], expires_in: 600 } },
  });
  assert.equal(changed.status, 200);
  assert.deepEqual(await titles(), [
    ["Tea", "Coffee", "Water"],
    ["Tea", "Coffee", "Water"],
    ["Juice", "Milk"],
  ]);
  const history = await server.get(`/api/v1/statuses/${s.id}/history`);
  for (const v of history.body) assertEntity(t, "StatusEdit", v);
  // Without a poll, a version has none.
  const plain = await post(server, alice, "no poll here");
  assert.equal((await server.get(`/api/v1/statuses/${plain.id}/history`)).body[0].poll, null);
});

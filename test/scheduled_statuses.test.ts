// Statuses scheduled for later, published by a job that survives a restart.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
});
after(() => server.close());

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

test("scheduling, listing, moving and cancelling", async (t) => {
  const res = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: {
      status: "Later #news",
      scheduled_at: inMinutes(10),
      visibility: "unlisted",
      poll: { options: ["a", "b"], expires_in: 3600 },
    },
  });
  assert.equal(res.status, 200);
  // A JSON number, as Mastodon sends it, written digit for digit (a double would round our ids).
  const applicationId = /"application_id":(\d+)[,}]/.exec(res.text)?.[1];
  const app = await server.rt.db
    .selectFrom("oauth_applications")
    .select("id")
    .where("name", "=", "Rookery tests")
    .executeTakeFirstOrThrow();
  assert.equal(applicationId, app.id);
  assertEntity(t, "ScheduledStatus", res.body);
  assert.equal(res.body.params.text, "Later #news");
  assert.equal(res.body.params.visibility, "unlisted");
  assert.deepEqual(res.body.params.poll.options, ["a", "b"]);
  assert.deepEqual(res.body.media_attachments, []);
  const list = await server.get("/api/v1/scheduled_statuses", { token: alice.token });
  assert.deepEqual(
    list.body.map((s: { id: string }) => s.id),
    [res.body.id],
  );
  assert.equal((await server.get(`/api/v1/accounts/${alice.accountId}/statuses`)).body.length, 0, "not posted yet");

  const at = inMinutes(20);
  const moved = await server.put(`/api/v1/scheduled_statuses/${res.body.id}`, {
    token: alice.token,
    json: { scheduled_at: at },
  });
  assert.equal(moved.body.scheduled_at, new Date(at).toISOString());
  assert.deepEqual((await server.delete(`/api/v1/scheduled_statuses/${res.body.id}`, { token: alice.token })).body, {});
  assert.equal((await server.get(`/api/v1/scheduled_statuses/${res.body.id}`, { token: alice.token })).status, 404);
});

test("too soon is a 422", async () => {
  const res = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: { status: "x", scheduled_at: inMinutes(2) },
  });
  assert.equal(res.status, 422);
  assert.equal(res.body.error, "Validation failed: Scheduled at must be at least 5 minutes in the future");
  const bad = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: { status: "", scheduled_at: inMinutes(10) },
  });
  assert.equal(bad.status, 422, "the post itself is checked when scheduled");
});

test("a scheduled status is published on time, even across a restart", async () => {
  const res = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: { status: "From the past", scheduled_at: inMinutes(6) },
  });
  const id = res.body.id;
  await server.restart();
  // Let six minutes pass: the row and its job come due.
  await server.rt.db
    .updateTable("scheduled_statuses")
    .set({ scheduled_at: new Date(Date.now() - 1000) })
    .where("id", "=", id)
    .execute();
  await server.rt.db
    .updateTable("jobs")
    .set({ run_at: new Date() })
    .where("type", "=", "statuses.publish_scheduled")
    .execute();
  server.rt.queue.wake();
  await server.settle();
  const posted = await server.get(`/api/v1/accounts/${alice.accountId}/statuses`);
  assert.deepEqual(
    posted.body.map((s: { content: string }) => s.content),
    ["<p>From the past</p>"],
  );
  assert.equal((await server.get(`/api/v1/scheduled_statuses/${id}`, { token: alice.token })).status, 404);
});

// Announcements: what signed-in people see (GET /api/v1/announcements), dismissing and reacting,
// and what operators publish, schedule and remove (the services behind `rookery announcements`).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { addAnnouncement, allAnnouncements, removeAnnouncement } from "../src/services/announcements/announcements.ts";
import { addEmoji } from "../src/services/emojis/custom_emojis.ts";
import { assertEntity } from "./conformance.ts";
import { post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#f80" } })
    .png()
    .toBuffer();
  await addEmoji(server.rt, { shortcode: "rookery", image: png });
});
after(() => server.close());

const list = (user: TestUser) => server.get("/api/v1/announcements", { token: user.token });

test("announcements in effect, with their mentions, statuses, tags and emojis", async (t) => {
  const status = await post(server, bob, "the release notes");
  const now = Date.now();
  const shown = await addAnnouncement(server.rt, {
    text: `Welcome @alice! Read ${status.url} #news :rookery:`,
    startsAt: new Date(now + 86_400_000),
    endsAt: new Date(now + 2 * 86_400_000),
    allDay: true,
  });
  await addAnnouncement(server.rt, { text: "later", publishAt: new Date(now + 3_600_000) });
  await addAnnouncement(server.rt, {
    text: "over",
    publishAt: new Date(now - 7_200_000),
    endsAt: new Date(now - 1000),
  });
  assert.equal((await server.get("/api/v1/announcements")).status, 401);
  const res = await list(alice);
  assert.equal(res.status, 200);
  assert.equal(res.body.length, 1, "neither the scheduled nor the ended one");
  const [a] = res.body;
  assertEntity(t, "Announcement", a);
  assert.equal(a.id, shown.id);
  assert.match(
    a.content,
    /^<p>Welcome <span class="h-card" translate="no"><a href="[^"]+\/@alice" class="u-url mention">@<span>alice<\/span><\/a><\/span>!/,
  );
  assert.equal(a.all_day, true);
  assert.equal(a.starts_at, new Date(now + 86_400_000).toISOString());
  assert.equal(a.read, false);
  assert.deepEqual(a.mentions, [
    { id: alice.accountId, username: "alice", url: `${server.url}/@alice`, acct: "alice" },
  ]);
  assert.deepEqual(a.statuses, [{ id: status.id, url: status.url }]);
  assert.deepEqual(a.tags, [{ name: "news", url: `${server.url}/tags/news` }]);
  assert.deepEqual(
    a.emojis.map((e: { shortcode: string }) => e.shortcode),
    ["rookery"],
  );
  assert.deepEqual(a.reactions, []);
  assert.equal((await allAnnouncements(server.rt)).length, 3);
});

test("dismissing marks read (twice is fine); reactions count per emoji with `me`", async (t) => {
  const [a] = (await list(alice)).body;
  for (let i = 0; i < 2; i++) {
    const res = await server.post(`/api/v1/announcements/${a.id}/dismiss`, { token: alice.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {});
  }
  assert.equal((await list(alice)).body[0].read, true);
  assert.equal((await list(bob)).body[0].read, false);

  const react = (user: TestUser, name: string, method: "put" | "delete" = "put") =>
    server[method](`/api/v1/announcements/${a.id}/reactions/${encodeURIComponent(name)}`, { token: user.token });
  assert.equal((await react(alice, "👍")).status, 200);
  assert.equal((await react(alice, "👍")).status, 200, "reacting twice counts once");
  assert.equal((await react(bob, "👍")).status, 200);
  assert.equal((await react(bob, "rookery")).status, 200);
  const reactions = (await list(alice)).body[0].reactions;
  assertEntity(t, "Announcement", (await list(alice)).body[0]);
  assert.deepEqual(reactions[0], { name: "👍", count: 2, me: true });
  assert.equal(reactions[1].name, "rookery");
  assert.deepEqual([reactions[1].count, reactions[1].me], [1, false]);
  assert.match(reactions[1].url, /\/rookery\.png$/);
  assert.match(reactions[1].static_url, /\/rookery\.static\.png$/);
  const bad = await react(alice, "notanemoji");
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error, "Validation failed: Name is not a recognized emoji");
  assert.equal((await react(alice, "👍", "delete")).status, 200);
  assert.deepEqual((await list(alice)).body[0].reactions[0], { name: "👍", count: 1, me: false });
  assert.equal((await server.post("/api/v1/announcements/123/dismiss", { token: alice.token })).status, 404);
  assert.equal((await server.put(`/api/v1/announcements/${a.id}/reactions/x`, { token: null })).status, 401);
});

test("at most 8 different reactions; removed announcements are gone", async () => {
  const a = await addAnnouncement(server.rt, { text: "react away" });
  const emojis = ["😀", "😃", "😄", "😁", "😆", "😅", "🤣", "😂"];
  for (const e of emojis) {
    const res = await server.put(`/api/v1/announcements/${a.id}/reactions/${encodeURIComponent(e)}`, {
      token: bob.token,
    });
    assert.equal(res.status, 200);
  }
  const ninth = await server.put(`/api/v1/announcements/${a.id}/reactions/${encodeURIComponent("🙂")}`, {
    token: bob.token,
  });
  assert.equal(ninth.status, 422);
  assert.equal(
    (await server.put(`/api/v1/announcements/${a.id}/reactions/${encodeURIComponent("😀")}`, { token: alice.token }))
      .status,
    200,
    "an existing kind is still fine",
  );
  await removeAnnouncement(server.rt, a.id);
  assert.ok(!(await list(bob)).body.some((x: { id: string }) => x.id === a.id));
  assert.equal((await server.post(`/api/v1/announcements/${a.id}/dismiss`, { token: bob.token })).status, 404);
});

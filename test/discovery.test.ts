// The profile directory (GET /api/v1/directory) and follow suggestions (GET /api/v2/suggestions,
// GET /api/v1/suggestions, DELETE /api/v1/suggestions/:id).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setFeatured } from "../src/services/accounts/suggestions.ts";
import { assertEntity } from "./conformance.ts";
import { block, follow, mute, post, remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let viewer: TestUser;
let listed: TestUser;
let quiet: TestUser;
let unlisted: TestUser;
let blocked: TestUser;
let remote: string;

before(async () => {
  server = await startServer();
  viewer = await server.user("viewer");
  listed = await server.user("listed");
  quiet = await server.user("quiet");
  unlisted = await server.user("unlisted");
  blocked = await server.user("blockedone");
  remote = await remoteAccount(server, "faraway", "remote.example", { discoverable: true });
  for (const u of [listed, quiet, blocked]) await setAccount(server, u.accountId, { discoverable: true });
  await post(server, listed, "listed posts");
  await block(server, viewer, blocked);
});
after(() => server.close());

const ids = (body: { id: string }[]) => body.map((a) => a.id);

test("directory: discoverable accounts only, most recently active or newest first, local or all", async () => {
  const active = await server.get("/api/v1/directory", { query: { order: "active" } });
  assert.equal(active.status, 200);
  // Without a viewer, nobody is left out for blocking; quiet has never posted and comes after.
  assert.deepEqual(ids(active.body), [listed.accountId, remote, blocked.accountId, quiet.accountId]);
  const newest = await server.get("/api/v1/directory", { query: { order: "new", local: "true" } });
  assert.deepEqual(ids(newest.body), [blocked.accountId, quiet.accountId, listed.accountId]);
  const seen = await server.get("/api/v1/directory", { token: viewer.token, query: { order: "new" } });
  assert.deepEqual(ids(seen.body), [remote, quiet.accountId, listed.accountId], "blocked accounts are left out");
  const page = await server.get("/api/v1/directory", { query: { order: "new", limit: "1", offset: "1" } });
  assert.deepEqual(ids(page.body), [blocked.accountId]);
  assert.ok(!ids(active.body).includes(unlisted.accountId));
  await setAccount(server, quiet.accountId, { suspended_at: new Date() });
  const after = await server.get("/api/v1/directory", { query: { order: "new", local: "1" } });
  assert.deepEqual(ids(after.body), [blocked.accountId, listed.accountId]);
  await setAccount(server, quiet.accountId, { suspended_at: null });
});

test("suggestions: staff picks, then friends of friends, then the most followed; never followed, blocked or muted", async (t) => {
  const friend = await server.user("friend");
  const popular = await server.user("popular");
  const muted = await server.user("muted");
  const staffPick = await server.user("staffpick");
  for (const u of [friend, popular, muted]) await setAccount(server, u.accountId, { discoverable: true });
  await setFeatured(server.rt, staffPick.accountId, true);
  await follow(server, viewer, friend);
  await follow(server, friend, listed);
  for (const u of [listed, quiet, muted, friend]) await follow(server, u, popular);
  await follow(server, listed, muted);
  await mute(server, viewer, muted);

  const v2 = await server.get("/api/v2/suggestions", { token: viewer.token });
  assert.equal(v2.status, 200);
  for (const s of v2.body) assertEntity(t, "Suggestion", s);
  const shown = v2.body.map((s: { account: { id: string }; sources: string[]; source: string }) => [
    s.account.id,
    s.sources,
    s.source,
  ]);
  assert.deepEqual(shown.slice(0, 3), [
    [staffPick.accountId, ["featured"], "staff"],
    [listed.accountId, ["friends_of_friends", "most_followed"], "past_interactions"],
    // Followed by a friend too.
    [popular.accountId, ["friends_of_friends", "most_followed"], "past_interactions"],
  ]);
  const fans = await server.user("fan");
  await setAccount(server, fans.accountId, { discoverable: true });
  await follow(server, quiet, fans);
  const global = (await server.get("/api/v2/suggestions", { token: viewer.token })).body.find(
    (s: { account: { id: string } }) => s.account.id === fans.accountId,
  );
  assert.deepEqual([global.sources, global.source], [["most_followed"], "global"]);
  const all = shown.map((s: string[]) => s[0]);
  for (const left of [viewer.accountId, friend.accountId, muted.accountId, blocked.accountId])
    assert.ok(!all.includes(left));
  const v1 = await server.get("/api/v1/suggestions", { token: viewer.token, query: { limit: "2" } });
  assert.deepEqual(ids(v1.body), [staffPick.accountId, listed.accountId]);

  const removed = await server.delete(`/api/v1/suggestions/${listed.accountId}`, { token: viewer.token });
  assert.equal(removed.status, 200);
  assert.deepEqual(removed.body, {});
  assert.equal((await server.delete(`/api/v1/suggestions/${listed.accountId}`, { token: viewer.token })).status, 200);
  const again = await server.get("/api/v1/suggestions", { token: viewer.token });
  assert.deepEqual(ids(again.body).slice(0, 2), [staffPick.accountId, popular.accountId], "removed stays removed");
  assert.equal((await server.delete("/api/v1/suggestions/12345", { token: viewer.token })).status, 404);
  assert.equal((await server.get("/api/v2/suggestions")).status, 401);
});

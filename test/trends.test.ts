// Trends: hashtags (only those an operator allowed), statuses, links (none without preview cards,
// which test/preview_cards.test.ts makes), and the review behind `rookery trends allow|deny|review`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { reviewTag, tagsToReview } from "../src/services/trends/tags.ts";
import { post, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
const users: TestUser[] = [];

before(async () => {
  server = await startServer();
  for (const name of ["ann", "ben", "cat", "dan"]) {
    const u = await server.user(name);
    await setAccount(server, u.accountId, { discoverable: true });
    users.push(u);
  }
});
after(() => server.close());

test("hashtags trend by distinct accounts, once an operator allowed them", async () => {
  const [ann, ben, cat] = users;
  for (const u of [ann, ben, cat]) await post(server, u, "#Birding today");
  await post(server, ann, "#birding again, and #gardening");
  await post(server, ann, "#spamming #spamming");
  await post(server, ben, { status: "#gardening in private", visibility: "private" });
  await post(server, cat, "#gardening too");
  assert.deepEqual((await server.get("/api/v1/trends/tags")).body, [], "nothing is allowed yet");
  const waiting = await tagsToReview(server.rt);
  assert.deepEqual(
    waiting.map((t) => [t.tag.name, t.accounts]),
    [
      ["birding", 3],
      ["gardening", 2],
      ["spamming", 1],
    ],
  );
  await reviewTag(server.rt, "birding", true);
  await reviewTag(server.rt, "#Gardening", true);
  await reviewTag(server.rt, "spamming", false);
  assert.deepEqual(await tagsToReview(server.rt), []);
  const res = await server.get("/api/v1/trends/tags");
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.map((t: { name: string }) => t.name),
    ["Birding", "gardening"],
  );
  assert.deepEqual([res.body[0].history[0].uses, res.body[0].history[0].accounts], ["4", "3"]);
  const alias = await server.get("/api/v1/trends", { query: { limit: "1", offset: "1" } });
  assert.deepEqual(
    alias.body.map((t: { name: string }) => t.name),
    ["gardening"],
  );
  // Reviewed tags are the ones `exclude_unreviewed` keeps in search.
  const found = await server.get("/api/v2/search", {
    token: ann.token,
    query: { q: "#gard", type: "hashtags", exclude_unreviewed: "true" },
  });
  assert.deepEqual(
    found.body.hashtags.map((t: { name: string }) => t.name),
    ["gardening"],
  );
});

test("statuses trend by the distinct people who favourite and boost them", async () => {
  const [ann, ben, cat, dan] = users;
  const hot = (await post(server, ann, "hot take")).id;
  const warm = (await post(server, ben, "warm take")).id;
  const hidden = (await post(server, dan, "not discoverable")).id;
  await setAccount(server, dan.accountId, { discoverable: false });
  for (const u of [ben, cat, dan]) await server.post(`/api/v1/statuses/${hot}/favourite`, { token: u.token });
  await server.post(`/api/v1/statuses/${hot}/reblog`, { token: ben.token });
  await server.post(`/api/v1/statuses/${warm}/reblog`, { token: cat.token });
  await server.post(`/api/v1/statuses/${warm}/favourite`, { token: ben.token }); // the author's own
  await server.post(`/api/v1/statuses/${hidden}/favourite`, { token: ann.token });
  const res = await server.get("/api/v1/trends/statuses");
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.map((s: { id: string }) => s.id),
    [hot, warm],
  );
  const page = await server.get("/api/v1/trends/statuses", { token: ann.token, query: { offset: "1" } });
  assert.deepEqual(
    page.body.map((s: { id: string; favourited: boolean }) => [s.id, s.favourited]),
    [[warm, false]],
  );
  await server.post(`/api/v1/accounts/${ann.accountId}/block`, { token: cat.token });
  const blocked = await server.get("/api/v1/trends/statuses", { token: cat.token });
  assert.deepEqual(
    blocked.body.map((s: { id: string }) => s.id),
    [warm],
    "never a status the viewer may not see",
  );
});

test("links: none trends without preview cards", async () => {
  assert.deepEqual((await server.get("/api/v1/trends/links")).body, []);
  assert.equal((await server.get("/api/v1/timelines/link", { query: { url: "https://example.com/" } })).status, 404);
  assert.equal((await server.get("/api/v1/timelines/link")).status, 400);
});

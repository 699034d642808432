// Path parameters arrive decoded once, by the router: a `%` that a client escaped as `%25` is a `%`,
// and an escape that decodes to nothing valid is a tag that does not exist, never a 500.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
before(async () => {
  server = await startServer();
  alice = await server.user("alice");
});
after(() => server.close());

const ESCAPES = ["%25", "%25zz", "%zz", "%E0%A4%A", "%C3%28", "100%25"];

test("a hashtag named by an escaped or malformed escape is a 404, with or without a token", async () => {
  for (const name of ESCAPES) {
    for (const token of [undefined, alice.token]) {
      for (const path of [`/api/v1/tags/${name}`, `/api/v1/timelines/tag/${name}`]) {
        const res = await server.get(path, { token });
        const what = `${path} ${token ? "with" : "without"} token`;
        // A timeline of a tag nobody used is empty; either answer is fine, a 500 is not.
        if (res.status === 200 && path.includes("timelines")) assert.deepEqual(res.body, [], what);
        else assert.deepEqual([res.status, res.body], [404, { error: "Record not found" }], what);
      }
    }
    for (const action of ["follow", "unfollow", "feature", "unfeature"]) {
      const res = await server.post(`/api/v1/tags/${name}/${action}`, { token: alice.token });
      assert.equal(res.status, 404, `${name} ${action}`);
      assert.deepEqual(res.body, { error: "Record not found" });
    }
  }
});

test("an escaped hashtag is decoded exactly once", async () => {
  const tag = await server.get("/api/v1/tags/caf%C3%A9");
  assert.equal(tag.status, 200);
  assert.equal(tag.body.name, "café");
  const followed = await server.post("/api/v1/tags/%23caf%C3%A9/follow", { token: alice.token });
  assert.equal(followed.status, 200);
  assert.equal(followed.body.name, "café");
  assert.equal(followed.body.following, true);
  await server.post("/api/v1/statuses", { token: alice.token, json: { status: "Coffee #café" } });
  const timeline = await server.get("/api/v1/timelines/tag/caf%C3%A9");
  assert.deepEqual(
    timeline.body.map((s: { content: string }) => s.content.includes("Coffee")),
    [true],
  );
});

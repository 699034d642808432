// Who sees what: each visibility × each relation to the author × each read path and action.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let author: TestUser;
const viewers: Record<string, TestUser | null> = {};
const statuses: Record<string, string> = {};

before(async () => {
  server = await startServer();
  author = await server.user("author");
  for (const name of ["stranger", "follower", "mentioned", "blocked", "blocking"])
    viewers[name] = await server.user(name);
  viewers.anonymous = null;
  viewers.author = author;
  const token = (name: string) => viewers[name]!.token;
  assert.equal(
    (await server.post(`/api/v1/accounts/${author.accountId}/follow`, { token: token("follower") })).status,
    200,
  );
  assert.equal(
    (await server.post(`/api/v1/accounts/${viewers.blocked!.accountId}/block`, { token: author.token })).status,
    200,
  );
  assert.equal(
    (await server.post(`/api/v1/accounts/${author.accountId}/block`, { token: token("blocking") })).status,
    200,
  );
  for (const visibility of ["public", "unlisted", "private", "direct"]) {
    const res = await server.post("/api/v1/statuses", {
      token: author.token,
      json: { status: `${visibility} for @mentioned`, visibility },
    });
    assert.equal(res.status, 200);
    statuses[visibility] = res.body.id;
  }
});
after(() => server.close());

const expected: Record<string, string[]> = {
  public: ["anonymous", "stranger", "follower", "mentioned", "author"],
  unlisted: ["anonymous", "stranger", "follower", "mentioned", "author"],
  private: ["follower", "mentioned", "author"],
  direct: ["mentioned", "author"],
};

for (const visibility of ["public", "unlisted", "private", "direct"]) {
  test(`a ${visibility} status`, async () => {
    const id = statuses[visibility];
    for (const [name, viewer] of Object.entries(viewers)) {
      const token = viewer?.token;
      const sees = expected[visibility].includes(name);
      const code = sees ? 200 : 404;
      const label = `${visibility} / ${name}`;
      assert.equal((await server.get(`/api/v1/statuses/${id}`, { token })).status, code, `show: ${label}`);
      assert.equal((await server.get(`/api/v1/statuses/${id}/context`, { token })).status, code, `context: ${label}`);
      assert.equal(
        (await server.get(`/api/v1/statuses/${id}/favourited_by`, { token })).status,
        code,
        `favourited_by: ${label}`,
      );
      const listed = await server.get(`/api/v1/accounts/${author.accountId}/statuses`, { token });
      assert.equal(listed.status, 200);
      assert.equal(
        listed.body.some((s: { id: string }) => s.id === id),
        sees,
        `account statuses: ${label}`,
      );
      if (viewer && viewer !== author) {
        const fav = await server.post(`/api/v1/statuses/${id}/favourite`, { token });
        assert.equal(fav.status, code, `favourite: ${label}`);
        const unfav = await server.post(`/api/v1/statuses/${id}/unfavourite`, { token });
        assert.equal(unfav.status, code, `unfavourite: ${label}`);
        if (!sees) assert.deepEqual(unfav.body, { error: "Record not found" });
      }
    }
  });
}

test("anonymous readers cannot act", async () => {
  assert.equal((await server.post(`/api/v1/statuses/${statuses.public}/favourite`)).status, 401);
});

test("an unknown status and an invisible one answer the same", async () => {
  const stranger = viewers.stranger!.token;
  const unknown = await server.post("/api/v1/statuses/1234567890123/unfavourite", { token: stranger });
  const invisible = await server.post(`/api/v1/statuses/${statuses.direct}/unfavourite`, { token: stranger });
  assert.deepEqual([unknown.status, unknown.body], [invisible.status, invisible.body]);
});

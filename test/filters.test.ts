// Filters v2 and v1 through HTTP, and the keyword matching rules.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CompiledFilter, keywordPattern, matchFilters } from "../src/domain/filters.ts";
import { assertEntity } from "./conformance.ts";
import { follow, insertStatus, post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
});
after(() => server.close());

test("whole-word keywords hide 'cat' but not 'concatenate'; without whole_word, both", () => {
  const whole = keywordPattern("cat", true);
  assert.equal(whole.test("I have a cat."), true);
  assert.equal(whole.test("CAT!"), true);
  assert.equal(whole.test("please concatenate these"), false);
  assert.equal(whole.test("cats"), false);
  const anywhere = keywordPattern("cat", false);
  assert.equal(anywhere.test("please concatenate these"), true);
  assert.equal(keywordPattern("#nsfw", true).test("oops#nsfw"), true, "no boundary before a non-word start");
  assert.equal(keywordPattern("café", true).test("au Café."), true);
  assert.equal(keywordPattern("a.b", false).test("axb"), false, "keywords are literal");

  const filter: CompiledFilter = {
    filter: { id: "1", title: "Cats", context: ["home"], action: "hide", expires_at: null },
    keywords: [{ keyword: "cat", pattern: whole }],
    statusIds: new Set(["99"]),
  };
  assert.deepEqual(matchFilters([filter], "home", { id: "5", text: "my cat" })[0].keywordMatches, ["cat"]);
  assert.deepEqual(matchFilters([filter], "home", { id: "5", text: "concatenate" }), []);
  assert.deepEqual(matchFilters([filter], "public", { id: "5", text: "my cat" }), [], "only in its contexts");
  assert.deepEqual(matchFilters([filter], "home", { id: "99", text: "" })[0].statusMatches, ["99"]);
  const expired = { ...filter, filter: { ...filter.filter, expires_at: new Date(Date.now() - 1000) } };
  assert.deepEqual(matchFilters([expired], "home", { id: "5", text: "my cat" }), []);
});

test("create, read, update and delete a v2 filter with keywords", async (t) => {
  const created = await server.post("/api/v2/filters", {
    token: alice.token,
    form: {
      title: "Spoilers",
      "context[]": ["home", "public"],
      filter_action: "warn",
      expires_in: "3600",
      "keywords_attributes[][keyword]": "finale",
      "keywords_attributes[][whole_word]": "true",
    },
  });
  assert.equal(created.status, 200);
  assertEntity(t, "Filter", created.body);
  const f = created.body;
  assert.equal(f.title, "Spoilers");
  assert.deepEqual(f.context, ["home", "public"]);
  assert.equal(f.filter_action, "warn");
  assert.ok(Math.abs(new Date(f.expires_at).getTime() - Date.now() - 3600_000) < 10_000);
  assert.equal(f.keywords.length, 1);
  assert.deepEqual({ ...f.keywords[0], id: undefined }, { id: undefined, keyword: "finale", whole_word: true });
  assert.deepEqual(f.statuses, []);

  const updated = await server.put(`/api/v2/filters/${f.id}`, {
    token: alice.token,
    json: {
      title: "Show spoilers",
      filter_action: "hide",
      expires_in: "",
      keywords_attributes: [
        { id: f.keywords[0].id, _destroy: true },
        { keyword: "season", whole_word: false },
      ],
    },
  });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.title, "Show spoilers");
  assert.equal(updated.body.filter_action, "hide");
  assert.equal(updated.body.expires_at, null);
  assert.deepEqual(
    updated.body.keywords.map((k: { keyword: string }) => k.keyword),
    ["season"],
  );

  const list = await server.get("/api/v2/filters", { token: alice.token });
  assert.deepEqual(
    list.body.map((x: { id: string }) => x.id),
    [f.id],
  );
  assert.equal(
    (await server.get(`/api/v2/filters/${f.id}`, { token: bob.token })).status,
    404,
    "others' filters are not found",
  );
  assert.equal((await server.delete(`/api/v2/filters/${f.id}`, { token: bob.token })).status, 404);
  const deleted = await server.delete(`/api/v2/filters/${f.id}`, { token: alice.token });
  assert.deepEqual([deleted.status, deleted.body], [200, {}]);
  assert.equal((await server.get(`/api/v2/filters/${f.id}`, { token: alice.token })).status, 404);
});

test("invalid filters are 422; unknown keyword ids are 404", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ context: ["home"] }, "Validation failed: Title can't be blank"],
    [{ title: "x" }, "Validation failed: Context can't be blank"],
    [{ title: "x", context: ["kitchen"] }, "Validation failed: Context None or invalid context supplied"],
    [
      { title: "x", context: ["home"], filter_action: "explode" },
      "Validation failed: Filter action is not included in the list",
    ],
    [
      { title: "x", context: ["home"], keywords_attributes: [{ keyword: " " }] },
      "Validation failed: Keyword can't be blank",
    ],
  ];
  for (const [json, error] of cases) {
    const res = await server.post("/api/v2/filters", { token: alice.token, json });
    assert.deepEqual([res.status, res.body.error], [422, error], JSON.stringify(json));
  }
  const withId = await server.post("/api/v2/filters", {
    token: alice.token,
    json: { title: "x", context: ["home"], keywords_attributes: [{ id: "1", keyword: "a" }] },
  });
  assert.equal(withId.status, 404);
  assert.equal((await server.get("/api/v2/filters", { token: alice.token })).body.length, 0, "nothing half-written");
});

test("keywords and statuses as their own resources", async (t) => {
  const f = (
    await server.post("/api/v2/filters", { token: alice.token, json: { title: "Mixed", context: ["thread"] } })
  ).body;
  const k = await server.post(`/api/v2/filters/${f.id}/keywords`, {
    token: alice.token,
    json: { keyword: "Dog", whole_word: false },
  });
  assert.equal(k.status, 200);
  assertEntity(t, "FilterKeyword", k.body);
  assert.deepEqual([k.body.keyword, k.body.whole_word], ["Dog", false]);
  const changed = await server.put(`/api/v2/filters/keywords/${k.body.id}`, {
    token: alice.token,
    json: { keyword: "dogs", whole_word: true },
  });
  assert.deepEqual([changed.body.keyword, changed.body.whole_word], ["dogs", true]);
  assert.deepEqual((await server.get(`/api/v2/filters/${f.id}/keywords`, { token: alice.token })).body, [changed.body]);
  assert.equal((await server.get(`/api/v2/filters/keywords/${k.body.id}`, { token: bob.token })).status, 404);

  const statusId = await insertStatus(server, bob.accountId);
  const s = await server.post(`/api/v2/filters/${f.id}/statuses`, {
    token: alice.token,
    form: { status_id: statusId },
  });
  assert.equal(s.status, 200);
  assertEntity(t, "FilterStatus", s.body);
  assert.equal(s.body.status_id, statusId);
  assert.equal(
    (await server.post(`/api/v2/filters/${f.id}/statuses`, { token: alice.token, form: { status_id: statusId } }))
      .status,
    422,
  );
  assert.equal(
    (await server.post(`/api/v2/filters/${f.id}/statuses`, { token: alice.token, form: { status_id: "123" } })).status,
    404,
  );
  assert.deepEqual((await server.get(`/api/v2/filters/statuses/${s.body.id}`, { token: alice.token })).body, s.body);
  assert.equal((await server.delete(`/api/v2/filters/statuses/${s.body.id}`, { token: alice.token })).status, 200);
  assert.deepEqual((await server.get(`/api/v2/filters/${f.id}`, { token: alice.token })).body.statuses, []);
  assert.equal((await server.delete(`/api/v2/filters/keywords/${k.body.id}`, { token: alice.token })).status, 200);
});

test("v1 filters map onto v2: one keyword each", async (t) => {
  const created = await server.post("/api/v1/filters", {
    token: bob.token,
    form: { phrase: "election", "context[]": ["home", "notifications"], irreversible: "true", whole_word: "false" },
  });
  assert.equal(created.status, 200);
  assertEntity(t, "V1Filter", created.body);
  assert.deepEqual(
    { ...created.body, id: undefined },
    {
      id: undefined,
      phrase: "election",
      context: ["home", "notifications"],
      whole_word: false,
      expires_at: null,
      irreversible: true,
    },
  );
  const v2 = (await server.get("/api/v2/filters", { token: bob.token })).body;
  assert.equal(v2.length, 1);
  assert.equal(v2[0].title, "election");
  assert.equal(v2[0].filter_action, "hide");
  assert.equal(v2[0].keywords[0].id, created.body.id);

  const updated = await server.put(`/api/v1/filters/${created.body.id}`, {
    token: bob.token,
    json: { phrase: "elections", irreversible: false },
  });
  assert.equal(updated.body.phrase, "elections");
  assert.equal(updated.body.irreversible, false);
  await server.post(`/api/v2/filters/${v2[0].id}/keywords`, { token: bob.token, json: { keyword: "vote" } });
  const shared = await server.put(`/api/v1/filters/${created.body.id}`, {
    token: bob.token,
    json: { context: ["public"] },
  });
  assert.equal(shared.status, 422);
  assert.match(shared.body.error, /apply to more than one filter keyword/);
  assert.equal((await server.get("/api/v1/filters", { token: bob.token })).body.length, 2);
  assert.equal((await server.delete(`/api/v1/filters/${created.body.id}`, { token: bob.token })).status, 200);
  assert.deepEqual(
    (await server.get("/api/v1/filters", { token: bob.token })).body.map((f: { phrase: string }) => f.phrase),
    ["vote"],
  );
});

test("filters need the filters scopes", async () => {
  const reader = await server.user("reader", { scopes: ["read"] });
  assert.equal((await server.get("/api/v2/filters", { token: reader.token })).status, 200);
  assert.equal(
    (await server.post("/api/v2/filters", { token: reader.token, json: { title: "x", context: ["home"] } })).status,
    403,
  );
  assert.equal((await server.get("/api/v1/filters")).status, 401);
});

test("through the home timeline: a whole-word 'cat' hides the cat, not 'concatenate'", async () => {
  const reader = await server.user("cat_reader");
  const author = await server.user("cat_author");
  await follow(server, reader, author);
  const created = await server.post("/api/v2/filters", {
    token: reader.token,
    json: {
      title: "cats",
      context: ["home"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "cat", whole_word: true }],
    },
  });
  const cat = (await post(server, author, "Look at my cat!")).id;
  const concat = (await post(server, author, "Remember to concatenate the strings")).id;
  await server.settle();
  const home = async () =>
    (await server.get("/api/v1/timelines/home", { token: reader.token })).body.map((s: { id: string }) => s.id);
  assert.deepEqual(await home(), [concat]);
  assert.equal((await server.get(`/api/v1/statuses/${cat}`, { token: reader.token })).status, 200);

  const keyword = created.body.keywords[0].id;
  await server.put(`/api/v2/filters/keywords/${keyword}`, {
    token: reader.token,
    json: { keyword: "cat", whole_word: false },
  });
  assert.deepEqual(await home(), []);
});

// Hostile and unusual request parameters: ids as big JSON numbers, nesting and key counts, values of
// the wrong shape, NUL bytes, oversized strings, impossible ids, punctuation in filter keywords.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { FILTER_KEYWORD_MAX, HASHTAG_MAX, LIST_TITLE_MAX } from "../src/domain/lengths.ts";
import { MAX_DEPTH, MAX_STRING_LENGTH, MAX_VALUES } from "../src/http/params.ts";
import { startServer, type TestResponse, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  assert.equal((await server.post(`/api/v1/accounts/${bob.accountId}/follow`, { token: alice.token })).status, 200);
});
after(() => server.close());

/** A JSON body sent as written, so that numbers keep every digit. */
const rawJson = (body: string, token = alice.token) => ({
  token,
  body,
  headers: { "content-type": "application/json" },
});

const post = async (token: string, status: string) => {
  const res = await server.post("/api/v1/statuses", { token, json: { status } });
  assert.equal(res.status, 200, res.text);
  return res.body.id as string;
};

function assertError(res: TestResponse, status: number, pattern?: RegExp) {
  assert.equal(res.status, status, res.text);
  assert.equal(typeof res.body.error, "string", res.text);
  if (pattern) assert.match(res.body.error, pattern);
}

test("ids sent as JSON numbers beyond 2^53 keep every digit", async () => {
  const big = "117671824106241024";
  assert.notEqual(String(Number(big)), big, "the number is one a double would round");
  const set = await server.post("/api/v1/markers", rawJson(`{"home": {"last_read_id": ${big}}}`));
  assert.equal(set.status, 200, set.text);
  assert.equal(set.body.home.last_read_id, big);
  assert.equal(
    (await server.get("/api/v1/markers?timeline[]=home", { token: alice.token })).body.home.last_read_id,
    big,
  );

  const parent = await post(bob.token, "a parent");
  const reply = await server.post("/api/v1/statuses", rawJson(`{"status": "a reply", "in_reply_to_id": ${parent}}`));
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.body.in_reply_to_id, parent);

  const reported = await server.post(
    "/api/v1/reports",
    rawJson(`{"account_id": ${bob.accountId}, "status_ids": [${parent}], "comment": "numbers"}`),
  );
  assert.equal(reported.status, 200, reported.text);
  assert.deepEqual(reported.body.status_ids, [parent]);

  const list = await server.post("/api/v1/lists", { token: alice.token, json: { title: "Friends" } });
  const added = await server.post(
    `/api/v1/lists/${list.body.id}/accounts`,
    rawJson(`{"account_ids": [${bob.accountId}]}`),
  );
  assert.equal(added.status, 200, added.text);
  const members = await server.get(`/api/v1/lists/${list.body.id}/accounts`, { token: alice.token });
  assert.deepEqual(
    members.body.map((a: { id: string }) => a.id),
    [bob.accountId],
  );
});

test("nesting deeper than Rack's limit is a 400 in every encoding, found in time linear in its size", async (t) => {
  const deepKey = `a${"[b]".repeat(100_000)}`;
  const deepJson = `{"client_name": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  assertError(await server.post("/api/v1/apps", { body: `${deepKey}=1`, headers: form }), 400, /nested deeper/);
  assertError(await server.post("/api/v1/apps", rawJson(deepJson)), 400, /nested deeper/);
  const multipart = new FormData();
  multipart.set(deepKey, "1");
  assertError(await server.post("/api/v1/apps", { multipart }), 400, /nested deeper/);
  assertError(await server.get(`/api/v1/timelines/public?a${"[b]".repeat(MAX_DEPTH)}=1`), 400, /nested deeper/);

  // Refused without walking the nesting once per level: refusing a deep body takes about as long
  // as reading a flat one of the same size (a walk per level would take some 100,000 times as
  // long). Compared at the same moment on the same machine, the fastest of three of each, rather
  // than against a budget in milliseconds that a loaded machine overruns.
  const timed = async (send: () => Promise<unknown>) => {
    const started = performance.now();
    await send();
    return performance.now() - started;
  };
  const deep = () =>
    Promise.all([
      server.post("/api/v1/apps", { body: `${deepKey}=1`, headers: form }),
      server.post("/api/v1/apps", rawJson(deepJson)),
    ]);
  const flat = () =>
    Promise.all([
      server.post("/api/v1/apps", { body: `client_name=${"a".repeat(deepKey.length)}`, headers: form }),
      server.post("/api/v1/apps", rawJson(`{"client_name": "${"a".repeat(deepJson.length - 20)}"}`)),
    ]);
  const deepMs: number[] = [];
  const flatMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    deepMs.push(await timed(deep));
    flatMs.push(await timed(flat));
  }
  const times = `deep ${deepMs.map(Math.round)} ms, flat ${flatMs.map(Math.round)} ms`;
  t.diagnostic(times);
  assert.ok(Math.min(...deepMs) < 50 * Math.min(...flatMs), times);

  // At the limit it is an ordinary request (the unknown parameter is ignored).
  const app = await server.post("/api/v1/apps", {
    body: `client_name=Deep&redirect_uris=urn:ietf:wg:oauth:2.0:oob&a${"[b]".repeat(MAX_DEPTH - 1)}=1`,
    headers: form,
  });
  assert.equal(app.status, 200, app.text);
});

const form = { "content-type": "application/x-www-form-urlencoded" };

test("a __proto__ key names no parameter and reaches no prototype", async () => {
  const res = await server.post("/api/v1/apps", {
    body: "client_name=Proto&redirect_uris=urn:ietf:wg:oauth:2.0:oob&__proto__[polluted]=1&a[__proto__][polluted]=1",
    headers: form,
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.name, "Proto");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test("more values than the limit are a 400, in forms, JSON and query strings", async () => {
  const pairs = Array.from({ length: MAX_VALUES + 1 }, (_, i) => `k${i}=1`).join("&");
  assertError(await server.post("/api/v1/apps", { body: pairs, headers: form }), 400, /more than/);
  const keys = Object.fromEntries(Array.from({ length: MAX_VALUES + 1 }, (_, i) => [`k${i}`, 1]));
  assertError(await server.post("/api/v1/apps", { json: keys }), 400, /more than/);
  assertError(await server.post("/api/v1/apps", { json: { redirect_uris: Array(MAX_VALUES + 1).fill(0) } }), 400);
});

test("an array or object where a scalar belongs is a 422 naming the parameter", async () => {
  const nested = JSON.parse(`${"[".repeat(20)}1${"]".repeat(20)}`);
  const cases: [string, string, Record<string, unknown>, RegExp][] = [
    ["POST", `/api/v1/accounts/${bob.accountId}/follow`, { reblogs: nested }, /reblogs/],
    ["POST", `/api/v1/accounts/${bob.accountId}/follow`, { notify: { a: 1 } }, /notify/],
    ["POST", `/api/v1/accounts/${bob.accountId}/mute`, { notifications: [true] }, /notifications/],
    ["POST", "/api/v1/domain_blocks", { domain: nested }, /domain/],
    ["POST", "/api/v1/lists", { title: { a: "b" } }, /title/],
    ["POST", "/api/v1/lists", { title: "x", exclusive: [1] }, /exclusive/],
    ["POST", "/api/v1/filters", { phrase: "x", context: ["home"], whole_word: nested }, /whole_word/],
    ["POST", "/api/v1/filters", { phrase: "x", context: ["home"], irreversible: {} }, /irreversible/],
    ["POST", "/api/v1/filters", { phrase: "x", context: [["home"]] }, /context/],
    ["POST", "/api/v2/filters", { title: "x", context: ["home"], expires_in: [60] }, /expires_in/],
    [
      "POST",
      "/api/v2/filters",
      { title: "x", context: ["home"], keywords_attributes: [{ keyword: "a", whole_word: nested }] },
      /whole_word/,
    ],
    ["PATCH", "/api/v1/accounts/update_credentials", { locked: nested }, /locked/],
    ["PATCH", "/api/v1/accounts/update_credentials", { bot: { x: 1 } }, /bot/],
    ["PATCH", "/api/v1/accounts/update_credentials", { discoverable: [1] }, /discoverable/],
    ["PATCH", "/api/v1/accounts/update_credentials", { source: { sensitive: nested } }, /sensitive/],
    ["PATCH", "/api/v1/accounts/update_credentials", { display_name: ["x"] }, /display_name/],
    ["PATCH", "/api/v1/accounts/update_credentials", { fields_attributes: [{ name: ["x"], value: "y" }] }, /fields/],
    ["POST", "/api/v1/statuses", { status: nested }, /status/],
    ["POST", "/api/v1/statuses", { status: "x", sensitive: nested }, /sensitive/],
    ["POST", "/api/v1/statuses", { status: "x", in_reply_to_id: nested }, /in_reply_to_id/],
    ["POST", "/api/v1/markers", { home: { last_read_id: nested } }, /last_read_id/],
    ["GET", "/api/v1/timelines/home", { limit: nested }, /limit/],
  ];
  for (const [method, path, json, name] of cases) {
    const res =
      method === "GET"
        ? await server.get(`${path}?limit[]=1`, { token: alice.token })
        : await server.request(method, path, { token: alice.token, json });
    assertError(res, 422, name);
    assert.match(res.body.error, /^Validation failed: /, `${method} ${path}`);
  }
});

test("a NUL byte anywhere is refused with a 4xx, never stored or sent to the database", async () => {
  const nul = "a\u0000b";
  const expectRefused = (res: TestResponse, what: string) => {
    assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.text}`);
  };
  expectRefused(await server.post("/api/v1/lists", { token: alice.token, form: { title: nul } }), "form");
  expectRefused(await server.post("/api/v1/lists", { token: alice.token, json: { title: nul } }), "JSON");
  const multipart = new FormData();
  multipart.set("title", nul);
  expectRefused(await server.post("/api/v1/lists", { token: alice.token, multipart }), "multipart");
  expectRefused(await server.post("/api/v1/lists", { token: alice.token, json: { [nul]: "x", title: "t" } }), "key");
  expectRefused(await server.get("/api/v1/accounts/search?q=a%00b", { token: alice.token }), "query");
  expectRefused(await server.get("/api/v1/statuses/1%00"), "path id");
  expectRefused(await server.get("/api/v1/tags/a%00b", { token: alice.token }), "path name");
  expectRefused(
    await server.post("/api/v2/filters", { token: alice.token, json: { title: nul, context: ["home"] } }),
    "filter",
  );
  expectRefused(
    await server.post("/api/v1/apps", { json: { client_name: nul, redirect_uris: "urn:ietf:wg:oauth:2.0:oob" } }),
    "app",
  );
  expectRefused(
    await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, json: { note: nul } }),
    "profile",
  );
  expectRefused(await server.post("/api/v1/statuses", { token: alice.token, json: { status: nul } }), "status");
  expectRefused(
    await server.post(`/api/v1/accounts/${bob.accountId}/note`, { token: alice.token, json: { comment: nul } }),
    "note",
  );
  expectRefused(await server.post("/oauth/token", { json: { grant_type: "password", username: nul } }), "token");
  expectRefused(await server.get("/oauth/authorize?client_id=a%00b&response_type=code"), "authorize page");
  expectRefused(await server.post("/auth/sign_in", { form: { email: nul, password: "x" } }), "sign-in form");
  const lists = await server.get("/api/v1/lists", { token: alice.token });
  assert.ok(lists.body.every((l: { title: string }) => !l.title.includes("\u0000")));
});

test("strings beyond their maximum are a 422 before they reach the database", async () => {
  const huge = "x".repeat(1024 * 1024);
  assertError(
    await server.post("/api/v1/featured_tags", { token: alice.token, json: { name: huge } }),
    422,
    /too long/,
  );
  assertError(
    await server.post("/api/v1/featured_tags", { token: alice.token, json: { name: "t".repeat(HASHTAG_MAX + 1) } }),
    422,
  );
  const longest = await server.post("/api/v1/featured_tags", {
    token: alice.token,
    json: { name: "t".repeat(HASHTAG_MAX) },
  });
  assert.equal(longest.status, 200, longest.text);
  assertError(await server.get(`/api/v1/tags/${"t".repeat(3000)}`, { token: alice.token }), 404);

  assertError(
    await server.post("/api/v1/lists", { token: alice.token, json: { title: "é".repeat(LIST_TITLE_MAX + 1) } }),
    422,
    /title is too long \(maximum is 256 characters\)/,
  );
  const list = await server.post("/api/v1/lists", { token: alice.token, json: { title: "é".repeat(LIST_TITLE_MAX) } });
  assert.equal(list.status, 200, list.text);
  assertError(
    await server.post("/api/v2/filters", {
      token: alice.token,
      json: { title: "x", context: ["home"], keywords_attributes: [{ keyword: "k".repeat(FILTER_KEYWORD_MAX + 1) }] },
    }),
    422,
    /keyword is too long/,
  );
  assertError(
    await server.post("/api/v1/apps", {
      json: { client_name: "x".repeat(MAX_STRING_LENGTH + 1), redirect_uris: "urn:ietf:wg:oauth:2.0:oob" },
    }),
    422,
  );
  assertError(
    await server.post("/api/v1/apps", {
      json: { client_name: "x".repeat(61), redirect_uris: "urn:ietf:wg:oauth:2.0:oob" },
    }),
    422,
  );
});

test("a data: URI avatar may be larger than the general string cap", async () => {
  const noise = Buffer.alloc(200 * 200 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
  const png = await sharp(noise, { raw: { width: 200, height: 200, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const avatar = `data:image/png;base64,${png.toString("base64")}`;
  assert.ok(avatar.length > MAX_STRING_LENGTH);
  const res = await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, json: { avatar } });
  assert.equal(res.status, 200, res.text);
  assert.match(res.body.avatar, /^http/);
});

test("ids that cannot exist are not found, left out of lists, or refused", async () => {
  const impossible = ["9223372036854775808", "99999999999999999999", "-1", "0x10", "1e5"];
  const real = await post(bob.token, "a real one");
  for (const id of impossible) {
    assertError(await server.get(`/api/v1/statuses/${id}`, { token: alice.token }), 404);
    assertError(await server.get(`/api/v1/accounts/${id}`, { token: alice.token }), 404);
    assertError(await server.post(`/api/v1/accounts/${id}/follow`, { token: alice.token }), 404);
    const some = await server.get("/api/v1/statuses", { token: alice.token, query: { "id[]": [id, real] } });
    assert.equal(some.status, 200, some.text);
    assert.deepEqual(
      some.body.map((s: { id: string }) => s.id),
      [real],
    );
    const relationships = await server.get("/api/v1/accounts/relationships", {
      token: alice.token,
      query: { "id[]": [id, bob.accountId] },
    });
    assert.deepEqual(
      relationships.body.map((r: { id: string }) => r.id),
      [bob.accountId],
    );
    const page = await server.get("/api/v1/timelines/home", { token: alice.token, query: { max_id: id } });
    assert.equal(page.status, 200, page.text);
    assertError(
      await server.post("/api/v1/statuses", { token: alice.token, json: { status: "re", in_reply_to_id: id } }),
      404,
    );
    assertError(
      await server.post("/api/v1/markers", { token: alice.token, json: { home: { last_read_id: id } } }),
      422,
    );
  }
  const list = await server.post("/api/v1/lists", { token: alice.token, json: { title: "Impossible" } });
  assertError(
    await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
      token: alice.token,
      json: { account_ids: ["9223372036854775808"] },
    }),
    404,
  );
});

test("scheduled statuses: every id a string but Mastodon's integer application_id, the visibility they will have", async () => {
  const changed = await server.patch("/api/v1/accounts/update_credentials", {
    token: alice.token,
    json: { source: { privacy: "private" } },
  });
  assert.equal(changed.status, 200, changed.text);
  const parent = await post(bob.token, "to reply to later");
  const res = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: {
      status: "later",
      in_reply_to_id: parent,
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.params.visibility, "private");
  // Mastodon's one integer id here, written digit for digit as a JSON number.
  assert.match(res.text, /"application_id":\d{15,19}[,}]/);
  assert.equal(res.body.params.in_reply_to_id, parent);
  assert.equal(typeof res.body.id, "string");
});

// Every ASCII punctuation character, and scripts other than Latin.
const PUNCTUATION = [..."!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"];

test("filter keywords with any punctuation or script mark exactly the statuses they name", async () => {
  const keywords = [
    ...PUNCTUATION.map((p) => ({ keyword: `e${p}mail`, text: (w: string) => `write an ${w} today`, whole: true })),
    { keyword: "кот", text: (w: string) => `мой ${w} спит`, whole: true },
    { keyword: "γάτα", text: (w: string) => `η ${w} κοιμάται`, whole: true },
    { keyword: "قطة", text: (w: string) => `لدي ${w} جميلة`, whole: true },
    { keyword: "猫", text: (w: string) => `我的${w}很好`, whole: false },
  ];
  const created = await server.post("/api/v2/filters", {
    token: alice.token,
    json: {
      title: "Punctuation",
      context: ["home"],
      filter_action: "warn",
      keywords_attributes: keywords.map((k) => ({ keyword: k.keyword, whole_word: k.whole })),
    },
  });
  assert.equal(created.status, 200, created.text);

  const expected = new Map<string, string[]>();
  for (const k of keywords) expected.set(await post(bob.token, k.text(k.keyword)), [k.keyword]);
  // Near misses: a whole-word keyword inside a longer word, and text without the punctuation.
  for (const text of ["an e-mailbox", "an email", "котлета", "e mail"]) expected.set(await post(bob.token, text), []);
  await server.settle();

  const seen = new Map<string, string[]>();
  let maxId: string | undefined;
  for (;;) {
    const page = await server.get("/api/v1/timelines/home", {
      token: alice.token,
      query: { limit: "40", ...(maxId ? { max_id: maxId } : {}) },
    });
    assert.equal(page.status, 200, page.text);
    if (page.body.length === 0) break;
    for (const s of page.body as { id: string; filtered?: { keyword_matches: string[] | null }[] }[]) {
      seen.set(
        s.id,
        (s.filtered ?? []).flatMap((f) => f.keyword_matches ?? []),
      );
    }
    maxId = page.body.at(-1).id;
  }
  for (const [id, matches] of expected) assert.deepEqual(seen.get(id), matches, `status ${id}`);

  // Every other read path that renders statuses answers too.
  assert.equal((await server.get(`/api/v1/accounts/${bob.accountId}/statuses`, { token: alice.token })).status, 200);
  const one = [...expected.keys()][0];
  assert.equal((await server.get(`/api/v1/statuses/${one}`, { token: alice.token })).status, 200);
});

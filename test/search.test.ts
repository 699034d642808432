// GET /api/v2/search (accounts, hashtags, statuses with operators) and GET /api/v1/accounts/search:
// who may find which status, and that search never shows a status the searcher may not read.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRestAPIClient } from "masto";
import sharp from "sharp";
import { reindexStatuses } from "../src/services/search/status_index.ts";
import { assertEntity } from "./conformance.ts";
import { block, follow, insertStatus, post, remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
/** The searcher. */
let alice: TestUser;
/** Opted in to search (`indexable`). */
let bob: TestUser;
/** Not opted in. */
let carol: TestUser;
/** Opted in, and blocked by alice. */
let dave: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  carol = await server.user("carol");
  dave = await server.user("dave");
  for (const u of [bob, dave]) await setAccount(server, u.accountId, { indexable: true });
  await setAccount(server, carol.accountId, { display_name: "Carol Alder" });
});
after(() => server.close());

const statusIds = (res: { body: { statuses: { id: string }[] } }) => res.body.statuses.map((s) => s.id);

async function find(q: string, user: TestUser | null = alice, query: Record<string, string> = {}) {
  const res = await server.get("/api/v2/search", { token: user?.token ?? null, query: { q, ...query } });
  assert.equal(res.status, 200, res.text);
  return res;
}

async function statusesFound(q: string, user: TestUser = alice, query: Record<string, string> = {}) {
  return statusIds(await find(q, user, { type: "statuses", ...query }));
}

test("accounts: prefix of username or display name, exact match first, then followed accounts", async () => {
  const al = await server.user("al");
  const alfred = await server.user("alfred");
  await follow(server, alice, alfred);
  const res = await find("al", alice, { type: "accounts" });
  const names = res.body.accounts.map((a: { username: string }) => a.username);
  assert.deepEqual(names.slice(0, 2), ["al", "alfred"]);
  assert.ok(names.includes("alice"));
  assert.ok(names.includes("carol"), "found by the second word of her display name");
  assert.deepEqual(res.body.statuses, []);
  assert.deepEqual(res.body.hashtags, []);
  const following = await find("al", alice, { type: "accounts", following: "true" });
  assert.deepEqual(
    following.body.accounts.map((a: { id: string }) => a.id),
    [alfred.accountId],
  );
  // The v1 endpoint is the same search.
  const v1 = await server.get("/api/v1/accounts/search", { token: alice.token, query: { q: "al" } });
  assert.deepEqual(
    v1.body.map((a: { id: string }) => a.id),
    res.body.accounts.map((a: { id: string }) => a.id),
  );
  assert.equal(al.username, names[0]);
});

test("accounts: user@domain finds a known remote account; blocked accounts are left out", async () => {
  const remote = await remoteAccount(server, "zed", "far.example");
  const res = await find("zed@far.example");
  assert.deepEqual(
    res.body.accounts.map((a: { id: string; acct: string }) => [a.id, a.acct]),
    [[remote, "zed@far.example"]],
  );
  assert.deepEqual(res.body.hashtags, [], "no hashtags for a query with @");
  const blocker = await server.user("blocker");
  await block(server, blocker, dave);
  const names = (await find("dave", blocker)).body.accounts.map((a: { username: string }) => a.username);
  assert.deepEqual(names, []);
});

test("anonymous search: accounts and hashtags, never statuses; no resolve or offset", async () => {
  await post(server, bob, "anonymous readers never see #quokka statuses");
  const res = await find("quokka", null);
  assert.deepEqual(res.body.statuses, []);
  assert.deepEqual(
    res.body.hashtags.map((t: { name: string }) => t.name),
    ["quokka"],
  );
  const resolve = await server.get("/api/v2/search", { query: { q: "bob", resolve: "true" } });
  assert.equal(resolve.status, 401);
  assert.match(resolve.body.error, /resolve/);
  const offset = await server.get("/api/v2/search", { query: { q: "bob", offset: "5" } });
  assert.equal(offset.status, 401);
  assert.equal((await server.get("/api/v2/search", { token: alice.token })).status, 400);
  assert.equal((await server.get("/api/v2/search", { token: alice.token, query: { q: " " } })).status, 400);
});

test("hashtags: prefix matching, shortest first, with a week of history", async (t) => {
  await post(server, bob, "#birdwatching and #birds and #bird");
  await post(server, carol, "#birds again");
  const res = await find("#bird", alice, { type: "hashtags" });
  const tags = res.body.hashtags;
  assertEntity(t, "Search", res.body);
  assert.deepEqual(
    tags.map((t: { name: string }) => t.name),
    ["bird", "birds", "birdwatching"],
  );
  assert.equal(tags[1].url, `${server.url}/tags/birds`);
  assert.equal(tags[1].history.length, 7);
  assert.deepEqual(
    { uses: tags[1].history[0].uses, accounts: tags[1].history[0].accounts },
    { uses: "2", accounts: "2" },
  );
  assert.equal(tags[1].following, false);
  assert.deepEqual(res.body.accounts, []);
  // None is reviewed yet: only the exact match is offered, as Mastodon always offers it.
  const reviewedOnly = async (q: string) =>
    (await find(q, alice, { type: "hashtags", exclude_unreviewed: "1" })).body.hashtags.map((t: any) => t.name);
  assert.deepEqual(await reviewedOnly("bird"), ["bird"]);
  assert.deepEqual(await reviewedOnly("#Bird"), ["bird"]);
  assert.deepEqual(await reviewedOnly("bir"), []);
  await server.rt.db.updateTable("tags").set({ reviewed_at: new Date() }).where("name", "=", "birdwatching").execute();
  assert.deepEqual(await reviewedOnly("bird"), ["bird", "birdwatching"]);
  assert.deepEqual((await find("#bird", alice)).body.statuses, [], "no status search for a lone #tag");
});

test("statuses: public statuses of accounts that opted in, and what is in the searcher's library", async (t) => {
  const opted = (await post(server, bob, "the heron stood still")).id;
  const notOpted = (await post(server, carol, "a heron flew by")).id;
  const own = (await post(server, alice, "my heron photo")).id;
  const mentioning = (await post(server, carol, `@alice look, a heron`)).id;
  const favourited = (await post(server, carol, "heron season is here")).id;
  const bookmarked = (await post(server, carol, "herons nest in March heron")).id;
  const boosted = (await post(server, carol, "one more heron")).id;
  await server.post(`/api/v1/statuses/${favourited}/favourite`, { token: alice.token });
  await server.post(`/api/v1/statuses/${bookmarked}/bookmark`, { token: alice.token });
  await server.post(`/api/v1/statuses/${boosted}/reblog`, { token: alice.token });
  const all = [boosted, bookmarked, favourited, mentioning, own, opted];
  assertEntity(t, "Search", (await find("heron")).body);
  assert.deepEqual(await statusesFound("heron"), all);
  assert.ok(!all.includes(notOpted));
  assert.deepEqual(await statusesFound("heron in:library"), [boosted, bookmarked, favourited, mentioning, own]);
  assert.deepEqual(await statusesFound("heron in:public"), [opted]);
  // Another reader finds only the opted-in one (and their own).
  assert.deepEqual(await statusesFound("heron", dave), [opted]);
  // Words are matched whole, in any case and without accents.
  assert.deepEqual(await statusesFound("HÉRON", dave), [opted]);
  assert.deepEqual(await statusesFound("herons", alice), [bookmarked]);
  const page = await find("heron", alice, { type: "statuses", limit: "2", offset: "1" });
  assert.deepEqual(statusIds(page), [bookmarked, favourited]);
  assert.deepEqual(await statusesFound("heron", alice, { max_id: favourited, min_id: own }), [mentioning]);
  assert.deepEqual(await statusesFound("heron", alice, { account_id: bob.accountId }), [opted]);
});

test("statuses the searcher may not read are never found", async () => {
  const searcher = await server.user("searcher");
  const privateOf = (await post(server, bob, { status: "secret kiwi plans", visibility: "private" })).id;
  const direct = (await post(server, bob, { status: "@alice kiwi between us", visibility: "direct" })).id;
  const fromBlocked = (await post(server, dave, "kiwi from dave")).id;
  const deleted = (await post(server, bob, "kiwi soon gone")).id;
  assert.equal((await server.delete(`/api/v1/statuses/${deleted}`, { token: bob.token })).status, 200);
  const remote = await remoteAccount(server, "kiwifan", "blocked.example", { indexable: true });
  const fromBlockedDomain = await insertStatus(server, remote, { content: "<p>kiwi from afar</p>" });
  await block(server, searcher, dave);
  await server.post("/api/v1/domain_blocks", { token: searcher.token, json: { domain: "blocked.example" } });
  // A status the searcher favourited stays unfound once its author is blocked.
  assert.deepEqual(await statusesFound("kiwi", alice), [fromBlockedDomain, fromBlocked, direct]);
  for (const id of [privateOf, deleted]) assert.ok(!(await statusesFound("kiwi", alice)).includes(id));
  assert.deepEqual(await statusesFound("kiwi", searcher), []);
  // Following makes the private status readable, but it is not the follower's to find: not in their library.
  await follow(server, searcher, bob);
  assert.deepEqual(await statusesFound("kiwi", searcher), []);
  await server.post(`/api/v1/statuses/${privateOf}/favourite`, { token: searcher.token });
  assert.deepEqual(await statusesFound("kiwi", searcher), [privateOf]);
  // A suspended author's statuses go too.
  await setAccount(server, remote, { suspended_at: new Date() });
  assert.deepEqual(await statusesFound("kiwi", alice), [fromBlocked, direct]);
});

test("the index follows edits and deletes", async () => {
  const id = (await post(server, bob, "a pelican story")).id;
  assert.deepEqual(await statusesFound("pelican"), [id]);
  const edited = await server.put(`/api/v1/statuses/${id}`, {
    token: bob.token,
    json: { status: "a cormorant story", spoiler_text: "seabirds" },
  });
  assert.equal(edited.status, 200);
  assert.deepEqual(await statusesFound("pelican"), []);
  assert.deepEqual(await statusesFound("cormorant"), [id]);
  assert.deepEqual(await statusesFound("seabirds"), [id], "the content warning is searched too");
  await server.delete(`/api/v1/statuses/${id}`, { token: bob.token });
  assert.deepEqual(await statusesFound("cormorant"), []);
});

test("operators: phrases, exclusions, from:, has:, is:, language:, dates", async () => {
  const u = await server.user("opuser");
  await setAccount(server, u.accountId, { indexable: true });
  const first = (await post(server, u, { status: "the quick brown fox", language: "en" })).id;
  const second = (await post(server, u, { status: "brown quick fox", language: "de", sensitive: true })).id;
  const poll = (
    await post(server, u, {
      status: "fox poll",
      poll: { options: ["red fox", "arctic fox"], expires_in: 3600 },
    })
  ).id;
  const reply = (await post(server, alice, { status: "fox reply https://example.com/x", in_reply_to_id: first })).id;
  assert.deepEqual(await statusesFound(`"quick brown" fox`), [first]);
  assert.deepEqual(await statusesFound(`fox -quick`), [reply, poll]);
  assert.deepEqual(await statusesFound(`fox -"quick brown"`), [reply, poll, second]);
  assert.deepEqual(await statusesFound(`arctic`), [poll], "poll options are searched");
  assert.deepEqual(await statusesFound(`fox from:opuser`), [poll, second, first]);
  assert.deepEqual(await statusesFound(`fox from:@opuser@${new URL(server.url).host}`), [poll, second, first]);
  assert.deepEqual(await statusesFound(`fox from:me`), [reply]);
  assert.deepEqual(await statusesFound(`fox -from:opuser`), [reply]);
  assert.deepEqual(await statusesFound(`fox from:nobody`), []);
  assert.deepEqual(await statusesFound(`fox has:poll`), [poll]);
  assert.deepEqual(await statusesFound(`fox has:link`), [reply]);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123" } })
    .png()
    .toBuffer();
  const media = await server.post("/api/v2/media", {
    token: u.token,
    json: { file: `data:image/png;base64,${png.toString("base64")}` },
  });
  assert.equal(media.status, 200, media.text);
  const pictured = (await post(server, u, { status: "fox picture", media_ids: [media.body.id] })).id;
  assert.deepEqual(await statusesFound(`fox has:media`), [pictured]);
  assert.deepEqual(await statusesFound(`fox has:image`), [pictured]);
  assert.deepEqual(await statusesFound(`fox has:video`), []);
  assert.deepEqual(await statusesFound(`fox has:embed`), [], "no status here has a preview card");
  await server.delete(`/api/v1/statuses/${pictured}`, { token: u.token });
  assert.deepEqual(await statusesFound(`fox is:reply`), [reply]);
  assert.deepEqual(await statusesFound(`fox -is:reply from:opuser`), [poll, second, first]);
  assert.deepEqual(await statusesFound(`fox is:sensitive`), [second]);
  assert.deepEqual(await statusesFound(`fox language:de`), [second]);
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  assert.equal((await statusesFound(`fox during:${today}`)).length, 4);
  assert.equal((await statusesFound(`fox after:${yesterday}`)).length, 4);
  assert.deepEqual(await statusesFound(`fox after:${today}`), []);
  assert.deepEqual(await statusesFound(`fox before:${today}`), []);
  assert.equal((await statusesFound(`fox before:${tomorrow}`)).length, 4);
  assert.deepEqual(await statusesFound(`from:opuser is:sensitive`), [second], "operators alone search too");
  const bad = await server.get("/api/v2/search", { token: alice.token, query: { q: "fox before:2024-13-45" } });
  assert.equal(bad.status, 422);
  assert.match(bad.body.error, /date/);
});

test("resolve answers what is known here for a URL; masto.js searches and follows by handle", async () => {
  const status = await post(server, bob, "resolvable");
  const byUrl = await find(status.url, alice, { resolve: "true" });
  assert.deepEqual(statusIds(byUrl), [status.id]);
  const profile = await find(`${server.url}/@bob`, alice, { resolve: "true" });
  assert.deepEqual(
    profile.body.accounts.map((a: { id: string }) => a.id),
    [bob.accountId],
  );
  const masto = createRestAPIClient({ url: server.url, accessToken: carol.token });
  const found = await masto.v2.search.list({ q: "@bob", resolve: true, type: "accounts" });
  assert.equal(found.accounts[0].id, bob.accountId);
  const relationship = await masto.v1.accounts.$select(found.accounts[0].id).follow();
  assert.equal(relationship.following, true);
  const statuses = await masto.v2.search.list({ q: "resolvable", type: "statuses" });
  assert.deepEqual(
    statuses.statuses.map((s) => s.id),
    [status.id],
  );
});

test("a rebuilt index finds what the kept one did", async () => {
  const before = await statusesFound("heron");
  assert.ok(before.length > 0);
  const count = await reindexStatuses(server.rt.db, server.rt.dialect);
  assert.ok(count >= before.length);
  assert.deepEqual(await statusesFound("heron"), before);
});

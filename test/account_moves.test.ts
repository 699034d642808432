// Moving an account between two Rookery servers, through the settings pages as a member would:
// `newbie` on B names `oldie@A` as an alias, then `oldie` on A moves there. Oldie's follower on A
// follows newbie on B (a Follow, accepted), its follower on B follows newbie at once (B took the
// Move), both servers show `moved`, the actors carry `movedTo` and `alsoKnownAs`, and the 30 days'
// wait holds. B runs on SQLite whatever the suite runs on. Then the operator's command
// (`rookery accounts move`) moves an account between two of A's own.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { moveAsOperator } from "../src/cli/accounts.ts";
import { Browser, formFields, PASSWORD } from "./browser.ts";
import { handle, lookupRemote, settleAll, warmActor } from "./federation_rig.ts";
import { follow } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let a: TestServer;
let b: TestServer;
let oldie: TestUser;
let fanA: TestUser;
let newbie: TestUser;
let watcherB: TestUser;

before(async () => {
  // B stays on SQLite: with TEST_DATABASE_URL, A is on PostgreSQL and the move crosses databases.
  const env = { ALLOW_PRIVATE_ADDRESSES: "true" };
  a = await startServer({ env });
  b = await startServer({ env, sqlite: true });
  oldie = await a.user("oldie");
  fanA = await a.user("fan");
  newbie = await b.user("newbie");
  watcherB = await b.user("watcher");
  for (const [server, user] of [
    [a, oldie],
    [a, fanA],
    [b, newbie],
    [b, watcherB],
  ] as const) {
    await warmActor(server, user);
  }
});
after(async () => {
  await a?.close();
  await b?.close();
});

async function signedIn(server: TestServer, username: string): Promise<Browser> {
  const browser = new Browser(server);
  const page = await browser.get("/auth/sign_in");
  const res = await browser.post("/auth/sign_in", {
    ...formFields(page.text, "/auth/sign_in"),
    email: `${username}@example.test`,
    password: PASSWORD,
  });
  assert.equal(res.status, 303);
  return browser;
}

async function submit(browser: Browser, page: string, action: string, values: Record<string, string>) {
  const html = (await browser.get(page)).text;
  return browser.post(action, { ...formFields(html, action), ...values });
}

const relationship = async (server: TestServer, user: TestUser, id: string) => {
  const res = await server.get("/api/v1/accounts/relationships", { token: user.token, query: { "id[]": id } });
  assert.equal(res.status, 200, res.text);
  return res.body[0];
};

/** Polls until `check` holds, for a loaded machine. */
async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test("a move needs the new account to name the old one as an alias", async () => {
  const browser = await signedIn(a, "oldie");
  const res = await submit(browser, "/settings/migration", "/settings/migration", {
    acct: handle(b, newbie),
    current_password: PASSWORD,
  });
  assert.equal(res.status, 422);
  assert.match(res.text, /does not name this account as an alias/);
  const me = await a.get(`/api/v1/accounts/${oldie.accountId}`, { token: oldie.token });
  assert.equal(me.body.moved, undefined);
});

test("oldie@A moves to newbie@B: followers on both servers follow newbie, and both show the move", async () => {
  // Followers of oldie: fan on A, watcher on B (accepted by A at once).
  await follow(a, fanA, oldie);
  const oldieOnB = await lookupRemote(b, watcherB, a, oldie);
  const followed = await b.post(`/api/v1/accounts/${oldieOnB.id}/follow`, { token: watcherB.token });
  assert.equal(followed.status, 200, followed.text);
  await settleAll([a, b]);
  assert.equal((await relationship(b, watcherB, oldieOnB.id)).following, true);

  // On B, newbie names oldie@A as an alias.
  const onB = await signedIn(b, "newbie");
  const added = await submit(onB, "/settings/aliases", "/settings/aliases", { acct: `@${handle(a, oldie)}` });
  assert.equal(added.status, 303, added.text);
  const aliases = await onB.get("/settings/aliases");
  assert.match(aliases.text, new RegExp(`@${handle(a, oldie)}`));
  const newbieActor = await b.get("/users/newbie", { headers: { accept: "application/activity+json" } });
  // One alias compacts to a string, as JSON-LD allows.
  assert.deepEqual([newbieActor.body.alsoKnownAs].flat(), [`${a.url}/users/oldie`]);

  // A wrong password moves nothing.
  const onA = await signedIn(a, "oldie");
  const wrong = await submit(onA, "/settings/migration", "/settings/migration", {
    acct: handle(b, newbie),
    current_password: "not the password",
  });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /current password is not right/);

  const moved = await submit(onA, "/settings/migration", "/settings/migration", {
    acct: handle(b, newbie),
    current_password: PASSWORD,
  });
  assert.equal(moved.status, 303, moved.text);
  await settleAll([a, b]);

  // A: oldie shows where it went; its actor says so; fan follows newbie instead.
  const newbieOnA = await lookupRemote(a, fanA, b, newbie);
  const oldieOnA = await a.get(`/api/v1/accounts/${oldie.accountId}`, { token: fanA.token });
  assert.equal(oldieOnA.body.moved?.id, newbieOnA.id);
  assert.equal(oldieOnA.body.moved?.acct, handle(b, newbie));
  const credentials = await a.get("/api/v1/accounts/verify_credentials", { token: oldie.token });
  assert.equal(credentials.status, 200);
  assert.equal(credentials.body.moved?.id, newbieOnA.id);
  const oldieActor = await a.get("/users/oldie", { headers: { accept: "application/activity+json" } });
  assert.equal(oldieActor.body.movedTo, `${b.url}/users/newbie`);
  await until(async () => (await relationship(a, fanA, newbieOnA.id)).following === true, "fan follows newbie");
  assert.equal((await relationship(a, fanA, oldie.accountId)).following, false);

  // B: the Move was taken: watcher follows newbie, and oldie@A shows the move.
  await until(
    async () => (await relationship(b, watcherB, newbie.accountId)).following === true,
    "watcher follows newbie",
  );
  assert.equal((await relationship(b, watcherB, oldieOnB.id)).following, false);
  const oldieSeenOnB = await b.get(`/api/v1/accounts/${oldieOnB.id}`, { token: watcherB.token });
  assert.equal(oldieSeenOnB.body.moved?.id, newbie.accountId);
  // Newbie hears of both new followers, as of any follow.
  const notes = await b.get("/api/v1/notifications", { token: newbie.token, query: { "types[]": "follow" } });
  const from = notes.body.map((n: any) => n.account.acct).sort();
  assert.deepEqual(from, [handle(a, fanA), "watcher"].sort());
  const followers = await b.get(`/api/v1/accounts/${newbie.accountId}`, { token: newbie.token });
  assert.equal(followers.body.followers_count, 2);

  // The page tells of the move and of the wait; a second move is refused for 30 days.
  const page = await onA.get("/settings/migration");
  assert.match(page.text, new RegExp(`has moved to @${handle(b, newbie)}`));
  assert.match(page.text, /id="cooldown"/);
  assert.doesNotMatch(page.text, /action="\/settings\/migration"/);
  const again = await onA.post("/settings/migration", {
    ...formFields((await onA.get("/settings/aliases")).text, "/settings/aliases"),
    acct: handle(b, watcherB),
    current_password: PASSWORD,
  });
  assert.equal(again.status, 422);
  assert.match(again.text, /wait 30 days/);
});

test("the operator moves an account to another of this server's in one step", async () => {
  const before = await a.user("before");
  const after = await a.user("after");
  const reader = await a.user("reader");
  await follow(a, reader, before);
  // A remote account must name it already: B's watcher does not.
  await assert.rejects(
    () => moveAsOperator(a.rt, "before", handle(b, watcherB)),
    /does not name this account as an alias/,
  );
  await moveAsOperator(a.rt, "@before", "after");
  await a.settle();
  const seen = await a.get(`/api/v1/accounts/${before.accountId}`, { token: reader.token });
  assert.equal(seen.body.moved?.id, after.accountId);
  assert.equal((await relationship(a, reader, after.accountId)).following, true);
  assert.equal((await relationship(a, reader, before.accountId)).following, false);
  const actor = await a.get("/users/after", { headers: { accept: "application/activity+json" } });
  assert.deepEqual([actor.body.alsoKnownAs].flat(), [`${a.url}/users/before`]);
});

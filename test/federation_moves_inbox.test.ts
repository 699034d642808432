// Moves arriving in the inbox as Mastodon, GoToSocial, Misskey and Pleroma write them
// (test/fixtures/activities/*/move.json), signed by the account that moves, from stand-in servers:
// taken only when the target, read again, lists the mover in `alsoKnownAs`; then alice, who
// followed the mover, follows the target (asks to, on another server), and the mover shows `moved`.
// A Move received again changes nothing. A move to one of our accounts is followed at once. An
// actor's own `movedTo` counts only when its target names it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addAlias } from "../src/services/accounts/aliases.ts";
import { loadActivity, type Placeholder } from "./activity_fixtures.ts";
import { type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const SOFTWARE = ["mastodon", "gotosocial", "misskey", "pleroma"];

let server: TestServer;
let alice: TestUser;
const remotes: Record<string, RemoteServer> = {};

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  for (const software of SOFTWARE) remotes[software] = await startRemoteServer();
});
after(async () => {
  await server.close();
  for (const remote of Object.values(remotes)) await remote.close();
});

function values(remote: RemoteServer, sender: string, moveTarget: string): Partial<Record<Placeholder, string>> {
  return {
    actor: remote.actor(sender).id,
    origin: remote.origin,
    host: remote.host,
    target: `${server.url}/users/alice`,
    move_target: moveTarget,
  };
}

/** Posts `activity` to the shared inbox, signed by `sender` of `remote`, and waits for its job. */
async function deliver(remote: RemoteServer, sender: string, activity: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify(activity);
  const url = `${server.url}/inbox`;
  const res = await fetch(url, {
    method: "POST",
    headers: signedPostHeaders(remote.actor(sender), url, body, "draft-cavage"),
    body,
  });
  await res.arrayBuffer();
  await server.settle();
  return res.status;
}

async function lookup(acct: string): Promise<any> {
  const res = await server.get("/api/v1/accounts/lookup", { token: alice.token, query: { acct } });
  assert.equal(res.status, 200, `${acct}: ${res.text}`);
  return res.body;
}

const relationship = async (id: string) =>
  (await server.get("/api/v1/accounts/relationships", { token: alice.token, query: { "id[]": id } })).body[0];

const followsSentTo = (remote: RemoteServer, actor: string) =>
  remote.deliveries.map((d) => JSON.parse(d.body)).filter((a) => a.type === "Follow" && a.object === actor);

/** Alice follows `sender` of `remote`, which accepts. */
async function aliceFollows(remote: RemoteServer, sender: string): Promise<string> {
  const id = (await lookup(`${sender}@${remote.host}`)).id;
  const asked = await server.post(`/api/v1/accounts/${id}/follow`, { token: alice.token });
  assert.equal(asked.status, 200, asked.text);
  await server.settle();
  const [follow] = followsSentTo(remote, remote.actor(sender).id);
  assert.ok(follow, "the Follow was delivered");
  const accept = loadActivity("mastodon/accept_follow", {
    ...values(remote, sender, ""),
    our_follow: follow.id,
  });
  assert.equal(await deliver(remote, sender, accept), 202);
  assert.equal((await relationship(id)).following, true);
  return id;
}

for (const software of SOFTWARE) {
  test(`${software}'s Move: refused without the alias, taken with it, and again changes nothing`, async () => {
    const remote = remotes[software];
    const sender = remote.actor("sender");
    const next = remote.actor("next");
    const senderId = await aliceFollows(remote, "sender");
    const move = loadActivity(`${software}/move`, values(remote, "sender", next.id));

    // The target does not name the sender: nothing moves.
    assert.equal(await deliver(remote, "sender", move), 202);
    assert.equal((await relationship(senderId)).following, true);
    assert.equal((await server.get(`/api/v1/accounts/${senderId}`, { token: alice.token })).body.moved, undefined);

    // The target names it now (read again when the Move comes).
    next.alsoKnownAs = [sender.id];
    assert.equal(await deliver(remote, "sender", move), 202);
    const nextId = (await lookup(`next@${remote.host}`)).id;
    const toNext = await relationship(nextId);
    assert.deepEqual([toNext.following, toNext.requested], [false, true], "asked to follow next");
    assert.equal(followsSentTo(remote, next.id).length, 1);
    assert.equal((await relationship(senderId)).following, false);
    const moved = await server.get(`/api/v1/accounts/${senderId}`, { token: alice.token });
    assert.equal(moved.body.moved?.id, nextId);
    assert.equal(moved.body.moved?.acct, `next@${remote.host}`);

    // Received again: nothing more is sent or changed.
    assert.equal(await deliver(remote, "sender", move), 202);
    assert.equal(followsSentTo(remote, next.id).length, 1);
    assert.deepEqual(await relationship(nextId), toNext);
  });
}

test("a Move to one of our accounts, which names the mover: alice follows it at once, locked as it is", async () => {
  const remote = remotes.mastodon;
  const leaver = remote.actor("leaver");
  const senderId = await aliceFollows(remote, "leaver");
  const carla = await server.user("carla");
  const locked = await server.patch("/api/v1/accounts/update_credentials", {
    token: carla.token,
    json: { locked: true },
  });
  assert.equal(locked.status, 200, locked.text);
  await addAlias(server.rt, carla.accountId, `leaver@${remote.host}`);
  const move = loadActivity("mastodon/move", values(remote, "leaver", `${server.url}/users/carla`));
  move.id = `${leaver.id}#moves/2`;
  assert.equal(await deliver(remote, "leaver", move), 202);
  const toCarla = await relationship(carla.accountId);
  assert.deepEqual([toCarla.following, toCarla.requested], [true, false]);
  assert.equal((await relationship(senderId)).following, false);
  const notes = await server.get("/api/v1/notifications", { token: carla.token, query: { "types[]": "follow" } });
  assert.deepEqual(
    notes.body.map((n: any) => n.account.id),
    [alice.accountId],
  );
  // Someone else's Move of leaver (signed by another actor) is refused before it reaches the listener.
  const forged = { ...move, id: `${leaver.id}#moves/3` };
  assert.equal(await deliver(remote, "sender", forged), 401);
});

test("an actor's movedTo shows as moved only when its target names it", async () => {
  const remote = remotes.gotosocial;
  const drifter = remote.actor("drifter");
  const landing = remote.actor("landing");
  drifter.movedTo = landing.id;
  landing.alsoKnownAs = [drifter.id];
  const liar = remote.actor("liar");
  liar.movedTo = remote.actor("stranger").id;
  const moved = await lookup(`drifter@${remote.host}`);
  assert.equal(moved.moved?.acct, `landing@${remote.host}`);
  assert.deepEqual(moved.moved?.moved, undefined);
  assert.equal((await lookup(`liar@${remote.host}`)).moved, undefined);
});

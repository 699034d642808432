// notify(): who gets a notification record, and the group keys it is given.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newId } from "../src/domain/ids.ts";
import { type NewNotification, notify } from "../src/services/notifications/create.ts";
import { insertStatus, remoteAccount, setAccount } from "./relationship_fixtures.ts";
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

const send = (input: NewNotification) => server.rt.db.transaction().execute((trx) => notify(server.rt, trx, input));

async function keyOf(id: string | null) {
  assert.ok(id);
  const row = await server.rt.db
    .selectFrom("notifications")
    .select(["group_key", "filtered", "type"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.group_key;
}

const status = (authorId: string) => insertStatus(server, authorId, { local: true });

const hour = () => Math.floor(Date.now() / 3_600_000);

test("a notification is recorded with its fields, and follows of one recipient share a group", async () => {
  const carol = await server.user("carol");
  const first = await send({ recipientId: carol.accountId, fromAccountId: alice.accountId, type: "follow" });
  const second = await send({ recipientId: carol.accountId, fromAccountId: bob.accountId, type: "follow" });
  const row = await server.rt.db
    .selectFrom("notifications")
    .selectAll()
    .where("id", "=", first!)
    .executeTakeFirstOrThrow();
  assert.equal(row.account_id, carol.accountId);
  assert.equal(row.from_account_id, alice.accountId);
  assert.equal(row.type, "follow");
  assert.equal(row.status_id, null);
  assert.equal(row.filtered, false);
  assert.equal(row.group_key, `follow-${hour()}`);
  assert.equal(await keyOf(second), `follow-${hour()}`);
});

test("favourites and boosts group per status; other types stand alone", async () => {
  const dave = await server.user("dave");
  const one = await status(dave.accountId);
  const two = await status(dave.accountId);
  const favOne = await send({
    recipientId: dave.accountId,
    fromAccountId: alice.accountId,
    type: "favourite",
    statusId: one,
  });
  const favOneAgain = await send({
    recipientId: dave.accountId,
    fromAccountId: bob.accountId,
    type: "favourite",
    statusId: one,
  });
  const favTwo = await send({
    recipientId: dave.accountId,
    fromAccountId: alice.accountId,
    type: "favourite",
    statusId: two,
  });
  const boost = await send({
    recipientId: dave.accountId,
    fromAccountId: alice.accountId,
    type: "reblog",
    statusId: one,
  });
  const mention = await send({
    recipientId: dave.accountId,
    fromAccountId: alice.accountId,
    type: "mention",
    statusId: one,
  });
  assert.equal(await keyOf(favOne), `favourite-${one}-${hour()}`);
  assert.equal(await keyOf(favOneAgain), `favourite-${one}-${hour()}`);
  assert.equal(await keyOf(favTwo), `favourite-${two}-${hour()}`);
  assert.equal(await keyOf(boost), `reblog-${one}-${hour()}`);
  assert.equal(await keyOf(mention), `ungrouped-${mention}`);
});

test("a group keeps the hour it started in for twelve hours, then a new one starts", async () => {
  const erin = await server.user("erin");
  const earlier = hour() - 5;
  await server.rt.db
    .insertInto("notifications")
    .values({
      id: newId(),
      account_id: erin.accountId,
      from_account_id: alice.accountId,
      type: "follow",
      status_id: null,
      report_id: null,
      group_key: `follow-${earlier}`,
      created_at: new Date(),
    })
    .execute();
  const joined = await send({ recipientId: erin.accountId, fromAccountId: bob.accountId, type: "follow" });
  assert.equal(await keyOf(joined), `follow-${earlier}`);

  const frank = await server.user("frank");
  await server.rt.db
    .insertInto("notifications")
    .values({
      id: newId(),
      account_id: frank.accountId,
      from_account_id: alice.accountId,
      type: "follow",
      status_id: null,
      report_id: null,
      group_key: `follow-${hour() - 12}`,
      created_at: new Date(),
    })
    .execute();
  const fresh = await send({ recipientId: frank.accountId, fromAccountId: bob.accountId, type: "follow" });
  assert.equal(await keyOf(fresh), `follow-${hour()}`);
});

test("nobody is notified of their own actions, except a poll ending", async () => {
  assert.equal(await send({ recipientId: alice.accountId, fromAccountId: alice.accountId, type: "favourite" }), null);
  assert.ok(await send({ recipientId: alice.accountId, fromAccountId: alice.accountId, type: "poll" }));
});

test("blocked senders and senders muted with their notifications are skipped", async () => {
  const grace = await server.user("grace");
  const heidi = await server.user("heidi");
  const ivan = await server.user("ivan");
  await server.post(`/api/v1/accounts/${heidi.accountId}/block`, { token: grace.token });
  assert.equal(await send({ recipientId: grace.accountId, fromAccountId: heidi.accountId, type: "mention" }), null);

  await server.post(`/api/v1/accounts/${ivan.accountId}/mute`, { token: grace.token });
  assert.equal(await send({ recipientId: grace.accountId, fromAccountId: ivan.accountId, type: "follow" }), null);

  // A mute that keeps notifications, and a mute that has run out, skip nothing.
  await server.post(`/api/v1/accounts/${ivan.accountId}/mute`, { token: grace.token, json: { notifications: false } });
  assert.ok(await send({ recipientId: grace.accountId, fromAccountId: ivan.accountId, type: "follow" }));
  await server.post(`/api/v1/accounts/${ivan.accountId}/mute`, { token: grace.token, json: { duration: 60 } });
  assert.equal(await send({ recipientId: grace.accountId, fromAccountId: ivan.accountId, type: "mention" }), null);
  await server.rt.db
    .updateTable("mutes")
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where("account_id", "=", grace.accountId)
    .execute();
  assert.ok(await send({ recipientId: grace.accountId, fromAccountId: ivan.accountId, type: "mention" }));
});

test("senders of a blocked domain are skipped unless the recipient follows them", async () => {
  const judy = await server.user("judy");
  const remote = await remoteAccount(server, "mallory", "blocked.example");
  const followed = await remoteAccount(server, "trent", "blocked.example");
  await server.rt.db
    .insertInto("follows")
    .values({ id: newId(), account_id: judy.accountId, target_account_id: followed, uri: null, created_at: new Date() })
    .execute();
  await server.post("/api/v1/domain_blocks", { token: judy.token, form: { domain: "blocked.example" } });
  // Blocking the domain ended judy's follow of trent; follow him again to test the exception.
  await server.rt.db
    .insertInto("follows")
    .values({ id: newId(), account_id: judy.accountId, target_account_id: followed, uri: null, created_at: new Date() })
    .execute();
  assert.equal(await send({ recipientId: judy.accountId, fromAccountId: remote, type: "mention" }), null);
  assert.ok(await send({ recipientId: judy.accountId, fromAccountId: followed, type: "mention" }));
});

test("staff who outrank the recipient get mentions through a block", async () => {
  const moderator = await server.user("mod", { role: "moderator" });
  const kim = await server.user("kim");
  await server.post(`/api/v1/accounts/${moderator.accountId}/block`, { token: kim.token });
  assert.ok(await send({ recipientId: kim.accountId, fromAccountId: moderator.accountId, type: "mention" }));
  assert.equal(await send({ recipientId: kim.accountId, fromAccountId: moderator.accountId, type: "favourite" }), null);
});

test("only active local accounts receive notifications", async () => {
  const remote = await remoteAccount(server, "faraway", "remote.example");
  assert.equal(await send({ recipientId: remote, fromAccountId: alice.accountId, type: "follow" }), null);
  const leo = await server.user("leo");
  await setAccount(server, leo.accountId, { suspended_at: new Date() });
  assert.equal(await send({ recipientId: leo.accountId, fromAccountId: alice.accountId, type: "follow" }), null);
});

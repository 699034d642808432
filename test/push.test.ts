// Web Push end to end: apps subscribe through the API with a real P-256 key pair, every kind of
// notification is pushed to a push service running in this process, and what arrives is decrypted
// with the subscriber's private key in both encodings and its VAPID signature checked.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { dispatcher } from "../src/jobs/handlers.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { retryDelayMs } from "../src/services/push/delivery.ts";
import { assertEntity } from "./conformance.ts";
import { block, follow, freshUser, post, setAccount } from "./fixtures.ts";
import { startMailbox } from "./mailbox.ts";
import { type PushService, type Received, Subscriber, startPushService, verifyVapid } from "./push_receiver.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const TYPES = [
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "admin.sign_up",
  "admin.report",
] as const;
const ALL_ALERTS = Object.fromEntries(TYPES.map((t) => [t, true]));

let server: TestServer;
let pushService: PushService;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let serverKey: string;
let paths = 0;

before(async () => {
  pushService = await startPushService();
  mailbox = await startMailbox();
  server = await startServer({
    env: {
      ALLOW_PRIVATE_ADDRESSES: "true",
      REGISTRATIONS_MODE: "open",
      SMTP_URL: mailbox.url,
      SMTP_FROM: "rookery@mail.test",
    },
  });
  serverKey = (await server.get("/api/v2/instance")).body.configuration.vapid.public_key;
});
after(async () => {
  await server.close();
  await pushService.close();
  await mailbox.close();
});

/** A fresh path on the push service: one per subscription. */
const freshPath = () => `/push/${++paths}`;

async function subscribe(
  token: string,
  subscriber: Subscriber,
  o: { path?: string; standard?: boolean; alerts?: Record<string, boolean>; policy?: string } = {},
) {
  const path = o.path ?? freshPath();
  const res = await server.post("/api/v1/push/subscription", {
    token,
    json: {
      subscription: { endpoint: `${pushService.url}${path}`, keys: subscriber.keys, standard: o.standard ?? true },
      data: { alerts: o.alerts ?? ALL_ALERTS, ...(o.policy ? { policy: o.policy } : {}) },
    },
  });
  assert.equal(res.status, 200, res.text);
  return { path, body: res.body };
}

/** A second token of the same user, as a second app or device has. */
async function secondToken(user: TestUser): Promise<string> {
  const first = await server.rt.db
    .selectFrom("oauth_access_tokens")
    .select("application_id")
    .where("user_id", "=", user.userId)
    .executeTakeFirstOrThrow();
  const issued = await issueToken(server.rt, {
    applicationId: first.application_id,
    userId: user.userId,
    scopes: ["read", "write", "follow", "push"],
  });
  return issued.token;
}

/** The decrypted payload of a push, with the notification id as the exact digits sent. */
function open(push: Received, subscriber: Subscriber) {
  const text = subscriber.decrypt(push);
  const id = /"notification_id":(\d+)[,}]/.exec(text);
  assert.ok(id, `notification_id is a number: ${text}`);
  return { ...JSON.parse(text), notification_id: id[1] };
}

async function notificationIds(user: TestUser, types: string[]): Promise<string[]> {
  const res = await server.get("/api/v1/notifications", {
    token: user.token,
    query: { "types[]": types, limit: "40" },
  });
  return res.body.map((n: { id: string }) => n.id);
}

describe("delivery", () => {
  test("every kind of notification arrives, encrypted both ways, signed, with Mastodon's payload", async (t) => {
    const alice = await freshUser(server, "alice", { role: "admin" });
    const bob = await freshUser(server, "bob");
    const carol = await freshUser(server, "carol");
    const standardToken = alice.token;
    const legacyToken = await secondToken(alice);
    const phone = new Subscriber();
    const browser = new Subscriber();
    const standard = await subscribe(standardToken, phone, { standard: true });
    const legacy = await subscribe(legacyToken, browser, { standard: false });
    assertEntity(t, "WebPushSubscription", standard.body);
    assert.equal(standard.body.server_key, serverKey);
    assert.equal(standard.body.standard, true);
    assert.equal(legacy.body.standard, false);
    assert.equal(standard.body.policy, "all");
    assert.equal(standard.body.alerts.mention, true);
    assert.equal(standard.body.alerts.quote, false);
    const app = await server.post("/api/v1/apps", {
      json: { client_name: "x", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" },
    });
    assert.equal(app.body.vapid_key, serverKey);

    // mention
    await post(server, bob, `hello @${alice.username}, how are you?`);
    // status: alice asked to hear of bob's posts
    await follow(server, alice, bob, { notify: true });
    const news = await post(server, bob, "Some news <b>today</b>");
    // reblog and favourite of alice's post
    const mine = await post(server, alice, "my own post");
    assert.equal((await server.post(`/api/v1/statuses/${mine.id}/reblog`, { token: bob.token })).status, 200);
    assert.equal((await server.post(`/api/v1/statuses/${mine.id}/favourite`, { token: bob.token })).status, 200);
    await server.settle();
    // follow, then follow_request once alice is locked
    await follow(server, bob, alice);
    await setAccount(server, alice.accountId, { locked: true });
    await follow(server, carol, alice);
    // poll: alice voted in bob's poll, which ends
    const poll = await post(server, bob, {
      status: "Tea or coffee?",
      poll: { options: ["tea", "coffee"], expires_in: 300 },
    });
    const vote = await server.post(`/api/v1/polls/${poll.poll.id}/votes`, {
      token: alice.token,
      json: { choices: [0] },
    });
    assert.equal(vote.status, 200, vote.text);
    // Its end comes now rather than in five minutes.
    await server.rt.db
      .updateTable("polls")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", poll.poll.id)
      .execute();
    await dispatcher(server.rt)("polls.expire", { pollId: poll.poll.id }, { id: "0" });
    await server.settle();
    // update: alice boosted a post bob edits
    assert.equal((await server.post(`/api/v1/statuses/${news.id}/reblog`, { token: alice.token })).status, 200);
    const edit = await server.put(`/api/v1/statuses/${news.id}`, { token: bob.token, json: { status: "Edited news" } });
    assert.equal(edit.status, 200, edit.text);
    await server.settle();
    // admin.sign_up: someone signs up and confirms
    const signUpApp = await server.post("/api/v1/apps", {
      json: { client_name: "Signup", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" },
    });
    const appToken = await server.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_id: signUpApp.body.client_id,
        client_secret: signUpApp.body.client_secret,
        scope: "read write",
      },
    });
    const newcomer = `newcomer${paths}`;
    const signUp = await server.post("/api/v1/accounts", {
      token: appToken.body.access_token,
      form: { username: newcomer, email: `${newcomer}@mail.test`, password: "long enough password", agreement: "true" },
    });
    assert.equal(signUp.status, 200, signUp.text);
    const mail = await mailbox.mailTo(`${newcomer}@mail.test`);
    const link = new URL(/(http:\/\/\S+\/auth\/confirmation\?\S+)/.exec(mail.text)![1]);
    assert.equal((await server.get(link.pathname + link.search)).status, 200);
    // admin.report
    const report = await server.post("/api/v1/reports", { token: bob.token, json: { account_id: carol.accountId } });
    assert.equal(report.status, 200, report.text);
    await server.settle();

    const expected = [
      "mention",
      "status",
      "reblog",
      "favourite",
      "follow",
      "follow_request",
      "status", // bob's poll is a post too
      "poll",
      "update",
      "admin.sign_up",
      "admin.report",
    ];
    const ids = (await notificationIds(alice, expected)).reverse();
    assert.equal(ids.length, expected.length);
    const origin = new URL(pushService.url).origin;
    for (const [subscription, subscriber, token, encoding] of [
      [standard, phone, standardToken, "aes128gcm"],
      [legacy, browser, legacyToken, "aesgcm"],
    ] as const) {
      const pushes = pushService.on(subscription.path);
      assert.equal(pushes.length, expected.length, `${encoding}: one push per notification`);
      const payloads = pushes
        .map((p) => open(p, subscriber))
        .sort((a, b) => (BigInt(a.notification_id) < BigInt(b.notification_id) ? -1 : 1));
      assert.deepEqual(
        payloads.map((p) => p.notification_type),
        expected,
      );
      assert.deepEqual(
        payloads.map((p) => p.notification_id),
        ids,
      );
      for (const p of payloads) {
        assert.deepEqual(Object.keys(p).sort(), [
          "access_token",
          "body",
          "icon",
          "notification_id",
          "notification_type",
          "preferred_locale",
          "title",
        ]);
        assert.equal(p.access_token, token);
        assert.equal(p.preferred_locale, "en");
        assert.equal(p.icon, `${server.url}/avatars/original/missing.png`);
      }
      const byType = Object.fromEntries(payloads.toReversed().map((p) => [p.notification_type, p]));
      assert.equal(byType.mention.title, `You were mentioned by ${bob.username}`);
      assert.equal(byType.mention.body, `hello @${alice.username}, how are you?`);
      assert.equal(byType.status.title, `${bob.username} just posted`);
      assert.equal(byType.status.body, "Some news <b>today</b>");
      assert.equal(byType.reblog.title, `${bob.username} boosted your post`);
      assert.equal(byType.reblog.body, "my own post");
      assert.equal(byType.favourite.title, `${bob.username} favorited your post`);
      assert.equal(byType.follow.title, `${bob.username} is now following you`);
      assert.equal(byType.follow_request.title, `Pending follower: ${carol.username}`);
      assert.equal(byType.poll.title, `A poll by ${bob.username} has ended`);
      assert.equal(byType.poll.body, "Tea or coffee?");
      assert.equal(byType.update.title, `${bob.username} edited a post`);
      assert.equal(byType.update.body, "Edited news");
      assert.equal(byType["admin.sign_up"].title, `${newcomer} signed up`);
      assert.equal(byType["admin.report"].title, `${bob.username} submitted a report`);

      for (const push of pushes) {
        assert.equal(push.headers["content-encoding"], encoding);
        assert.equal(push.headers["content-type"], "application/octet-stream");
        assert.equal(push.headers.ttl, "172800");
        assert.equal(push.headers.urgency, "normal");
        assert.match(push.headers["user-agent"] ?? "", /^Rookery\/\S+ \(\+\S+\/\)$/);
        assert.ok(push.headers["user-agent"]?.endsWith(`(+${server.url}/)`), "the server's own origin");
        const claims = verifyVapid(push, serverKey);
        assert.equal(claims.aud, origin);
        assert.match(claims.sub, /^https:\/\/127\.0\.0\.1:\d+\/$/);
        assert.ok(claims.exp > Date.now() / 1000);
      }
    }
  });

  test("a job that runs again after its pushes went out pushes nothing twice", async () => {
    const dan = await freshUser(server, "dan");
    const eve = await freshUser(server, "eve");
    const device = new Subscriber();
    const { path } = await subscribe(dan.token, device);
    await post(server, eve, `@${dan.username} once`);
    assert.equal(pushService.on(path).length, 1);
    const [id] = await notificationIds(dan, ["mention"]);
    const run = dispatcher(server.rt);
    await run("push.deliver", { notificationId: id }, { id: "0" });
    await run("push.deliver", { notificationId: id }, { id: "0" });
    assert.equal(pushService.on(path).length, 1);
  });

  test("titles follow the recipient's language", async () => {
    const fay = await freshUser(server, "fay");
    const gus = await freshUser(server, "gus");
    await server.rt.db.updateTable("users").set({ locale: "de" }).where("id", "=", fay.userId).execute();
    const device = new Subscriber();
    const { path } = await subscribe(fay.token, device, { standard: false });
    await follow(server, gus, fay);
    await server.settle();
    const payload = open(pushService.on(path)[0], device);
    assert.equal(payload.preferred_locale, "de");
    assert.equal(payload.title, `${gus.username} folgt dir jetzt`);
  });
});

describe("alerts and policies", () => {
  test("only the alerts turned on are pushed; PUT replaces alerts and policy, as Mastodon does", async () => {
    const hal = await freshUser(server, "hal");
    const ivy = await freshUser(server, "ivy");
    const device = new Subscriber();
    const { path } = await subscribe(hal.token, device, { alerts: { mention: true } });
    const mine = await post(server, hal, "a post of mine");
    await server.post(`/api/v1/statuses/${mine.id}/favourite`, { token: ivy.token });
    await post(server, ivy, `@${hal.username} hi`);
    assert.deepEqual(
      pushService.on(path).map((p) => open(p, device).notification_type),
      ["mention"],
    );

    // Form-encoded, as many apps send it.
    const put = await server.put("/api/v1/push/subscription", {
      token: hal.token,
      form: { "data[alerts][favourite]": "true", "data[alerts][follow]": "0", "data[policy]": "followed" },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.alerts.favourite, true);
    assert.equal(put.body.alerts.mention, false);
    assert.equal(put.body.alerts.follow, false);
    assert.equal(put.body.policy, "followed");
    const bad = await server.put("/api/v1/push/subscription", { token: hal.token, json: { data: { policy: "some" } } });
    assert.equal(bad.status, 422);
    const back = await server.put("/api/v1/push/subscription", {
      token: hal.token,
      json: { data: { alerts: { favourite: true, mention: "true" } } },
    });
    assert.equal(back.body.policy, "all");
    assert.equal(back.body.alerts.favourite, true);
    assert.equal(back.body.alerts.mention, true);
    assert.deepEqual((await server.get("/api/v1/push/subscription", { token: hal.token })).body, back.body);
    const other = await post(server, hal, "another");
    await server.post(`/api/v1/statuses/${other.id}/favourite`, { token: ivy.token });
    await server.settle();
    assert.deepEqual(
      pushService.on(path).map((p) => open(p, device).notification_type),
      ["mention", "favourite"],
    );
  });

  test("policies: none, followed, follower, all", async () => {
    const jo = await freshUser(server, "jo");
    const followed = await freshUser(server, "followed");
    const follower = await freshUser(server, "follower");
    const stranger = await freshUser(server, "stranger");
    await follow(server, jo, followed);
    await follow(server, follower, jo);
    await server.settle();
    const device = new Subscriber();
    // Each sender says who it is in the text, which the push's body carries.
    const check = async (policy: string, senders: TestUser[]) => {
      const { path } = await subscribe(jo.token, device, { policy });
      for (const from of [followed, follower, stranger])
        await post(server, from, `@${jo.username} from ${from.username}`);
      const bodies = pushService.on(path).map((p) => open(p, device).body as string);
      assert.deepEqual(
        bodies,
        senders.map((s) => `@${jo.username} from ${s.username}`),
        policy,
      );
    };
    await check("none", []);
    await check("followed", [followed]);
    await check("follower", [follower]);
    await check("all", [followed, follower, stranger]);
    const bad = await server.post("/api/v1/push/subscription", {
      token: jo.token,
      json: {
        subscription: { endpoint: `${pushService.url}/x`, keys: device.keys },
        data: { policy: "friends" },
      },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body, { error: "Validation failed: Policy is not included in the list" });
  });

  test("nothing is pushed for filtered notifications, blocked senders or filtered words", async () => {
    const kit = await freshUser(server, "kit");
    const lou = await freshUser(server, "lou");
    const max = await freshUser(server, "max");
    const device = new Subscriber();
    const { path } = await subscribe(kit.token, device);
    // A keyword filter for notifications.
    const filter = await server.post("/api/v2/filters", {
      token: kit.token,
      json: { title: "spoilers", context: ["notifications"], keywords_attributes: [{ keyword: "finale" }] },
    });
    assert.equal(filter.status, 200, filter.text);
    await post(server, lou, `@${kit.username} the finale was great`);
    // A block.
    await block(server, kit, max);
    await post(server, max, `@${kit.username} blocked`);
    // The notification policy filters strangers.
    await server.patch("/api/v2/notifications/policy", { token: kit.token, json: { for_not_following: "filter" } });
    await post(server, lou, `@${kit.username} policy-filtered`);
    await server.settle();
    assert.equal(pushService.on(path).length, 0);
    // And a notification that is not filtered still is pushed.
    await server.patch("/api/v2/notifications/policy", { token: kit.token, json: { for_not_following: "accept" } });
    await post(server, lou, `@${kit.username} plain`);
    assert.deepEqual(
      pushService.on(path).map((p) => open(p, device).body),
      [`@${kit.username} plain`],
    );
  });
  test("a block made after the notification stops its push", async () => {
    const liz = await freshUser(server, "liz");
    const mo = await freshUser(server, "mo");
    await post(server, mo, `@${liz.username} before the block`);
    const [id] = await notificationIds(liz, ["mention"]);
    const { path } = await subscribe(liz.token, new Subscriber());
    await block(server, liz, mo);
    await dispatcher(server.rt)("push.deliver", { notificationId: id }, { id: "0" });
    assert.equal(pushService.on(path).length, 0);
  });
});

describe("the subscription API", () => {
  test("one subscription per token: a new one replaces it, other tokens keep theirs", async () => {
    const ned = await freshUser(server, "ned");
    const other = await secondToken(ned);
    const none = await server.get("/api/v1/push/subscription", { token: ned.token });
    assert.equal(none.status, 404);
    assert.deepEqual(none.body, { error: "Record not found" });
    assert.equal((await server.put("/api/v1/push/subscription", { token: ned.token, json: {} })).status, 404);

    const first = await subscribe(ned.token, new Subscriber());
    const kept = await subscribe(other, new Subscriber());
    const second = await subscribe(ned.token, new Subscriber(), { standard: false });
    assert.notEqual(second.body.id, first.body.id);
    const current = await server.get("/api/v1/push/subscription", { token: ned.token });
    assert.equal(current.status, 200);
    assert.deepEqual(current.body, second.body);
    assert.equal(current.body.endpoint, `${pushService.url}${second.path}`);
    assert.deepEqual((await server.get("/api/v1/push/subscription", { token: other })).body, kept.body);

    const oscar = await freshUser(server, "oscar");
    await post(server, oscar, `@${ned.username} hi`);
    assert.equal(pushService.on(first.path).length, 0, "the replaced subscription gets nothing");
    assert.equal(pushService.on(second.path).length, 1);
    assert.equal(pushService.on(kept.path).length, 1);

    assert.deepEqual((await server.delete("/api/v1/push/subscription", { token: ned.token })).body, {});
    assert.equal((await server.get("/api/v1/push/subscription", { token: ned.token })).status, 404);
    assert.equal((await server.delete("/api/v1/push/subscription", { token: ned.token })).status, 200);
  });

  test("revoking the token deletes its subscription", async () => {
    const pam = await freshUser(server, "pam");
    const app = await server.post("/api/v1/apps", {
      json: { client_name: "Phone", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read push" },
    });
    const token = await server.post("/oauth/token", {
      form: {
        grant_type: "password",
        client_id: app.body.client_id,
        client_secret: app.body.client_secret,
        username: `${pam.username}@example.test`,
        password: "correct horse battery staple",
        scope: "read push",
      },
    });
    assert.equal(token.status, 200, token.text);
    const accessToken: string = token.body.access_token;
    await subscribe(accessToken, new Subscriber());
    const before = await server.rt.db
      .selectFrom("push_subscriptions")
      .select("id")
      .where("account_id", "=", pam.accountId)
      .execute();
    assert.equal(before.length, 1);
    const revoked = await server.post("/oauth/revoke", {
      form: { client_id: app.body.client_id, client_secret: app.body.client_secret, token: accessToken },
    });
    assert.equal(revoked.status, 200);
    const afterRevoke = await server.rt.db
      .selectFrom("push_subscriptions")
      .select("id")
      .where("account_id", "=", pam.accountId)
      .execute();
    assert.deepEqual(afterRevoke, []);
  });

  test("bad keys and endpoints are a 422 when subscribing; missing ones a 400", async () => {
    const quin = await freshUser(server, "quin");
    const good = new Subscriber().keys;
    const attempt = (subscription: Record<string, unknown>) =>
      server.post("/api/v1/push/subscription", { token: quin.token, json: { subscription } });
    const endpoint = `${pushService.url}/bad`;
    // A point that is not on the curve, 65 bytes with the right prefix.
    const offCurve = Buffer.alloc(65, 7);
    offCurve[0] = 4;
    const cases: [Record<string, unknown>, string][] = [
      [{ endpoint, keys: { ...good, p256dh: offCurve.toString("base64url") } }, "p256dh"],
      [{ endpoint, keys: { ...good, p256dh: good.p256dh.slice(0, 40) } }, "p256dh"],
      [{ endpoint, keys: { ...good, p256dh: "not base64 at all!" } }, "p256dh"],
      [{ endpoint, keys: { ...good, auth: Buffer.alloc(8, 1).toString("base64url") } }, "auth"],
      [{ endpoint, keys: { ...good, auth: "" } }, "auth"],
      [{ endpoint: "ftp://push.example/x", keys: good }, "Endpoint"],
      [{ endpoint: "not a url", keys: good }, "Endpoint"],
    ];
    for (const [subscription, field] of cases) {
      const res = await attempt(subscription);
      assert.equal(res.status, 422, `${JSON.stringify(subscription)}: ${res.text}`);
      assert.match(res.body.error, new RegExp(`^Validation failed: .*${field}`));
    }
    assert.equal((await attempt({ keys: good })).status, 400);
    assert.equal((await server.post("/api/v1/push/subscription", { token: quin.token, json: {} })).status, 400);
    // Standard base64 with padding is read as well as base64url.
    const padded = new Subscriber();
    const ok = await attempt({
      endpoint,
      keys: {
        p256dh: padded.publicKey.toString("base64"),
        auth: padded.authSecret.toString("base64"),
      },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.standard, false);
    // The push scope is needed.
    const reader = await freshUser(server, "reader", { scopes: ["read"] });
    const denied = await server.get("/api/v1/push/subscription", { token: reader.token });
    assert.equal(denied.status, 403);
  });
});

describe("answers of the push service", () => {
  test("410 and 404 delete the subscription", async () => {
    for (const status of [410, 404]) {
      const rex = await freshUser(server, "rex");
      const sam = await freshUser(server, "sam");
      const { path } = await subscribe(rex.token, new Subscriber());
      pushService.answer(path, status);
      await post(server, sam, `@${rex.username} anyone there?`);
      assert.equal(pushService.on(path).length, 1);
      assert.equal((await server.get("/api/v1/push/subscription", { token: rex.token })).status, 404, String(status));
    }
  });

  test("429 and 5xx are tried again later, after Retry-After", async () => {
    const tom = await freshUser(server, "tom");
    const uma = await freshUser(server, "uma");
    const device = new Subscriber();
    const { path } = await subscribe(tom.token, device);
    pushService.answer(path, 429, { "retry-after": "120" });
    const before = Date.now();
    await post(server, uma, `@${tom.username} busy?`);
    assert.equal(pushService.on(path).length, 1);
    const retry = await server.rt.db
      .selectFrom("jobs")
      .select(["id", "payload", "run_at"])
      .where("type", "=", "push.deliver")
      .executeTakeFirstOrThrow();
    assert.equal((retry.payload as { attempt: number }).attempt, 2);
    const wait = new Date(retry.run_at).getTime() - before;
    assert.ok(wait >= 119_000 && wait < 130_000, `waits for Retry-After: ${wait}`);

    // The next try meets a 503, then the service is back.
    pushService.answer(path, 503);
    await server.rt.db.updateTable("jobs").set({ run_at: new Date() }).where("id", "=", retry.id).execute();
    server.rt.queue.wake();
    await server.settle();
    assert.equal(pushService.on(path).length, 2);
    const third = await server.rt.db
      .selectFrom("jobs")
      .select(["id", "payload"])
      .where("type", "=", "push.deliver")
      .executeTakeFirstOrThrow();
    assert.equal((third.payload as { attempt: number }).attempt, 3);
    pushService.answer(path, 201);
    await server.rt.db.updateTable("jobs").set({ run_at: new Date() }).where("id", "=", third.id).execute();
    server.rt.queue.wake();
    await server.settle();
    const pushes = pushService.on(path);
    assert.equal(pushes.length, 3);
    assert.equal(open(pushes[2], device).body, `@${tom.username} busy?`);
    assert.equal((await server.get("/api/v1/push/subscription", { token: tom.token })).status, 200);
    assert.equal(
      (await server.rt.db.selectFrom("jobs").select("id").where("type", "=", "push.deliver").execute()).length,
      0,
    );
  });

  test("at most 4 pushes go to one push service at once", async () => {
    const una = await freshUser(server, "una");
    const vera = await freshUser(server, "vera");
    const devicePaths: string[] = [];
    for (let i = 0; i < 7; i++) {
      const { path } = await subscribe(i === 0 ? una.token : await secondToken(una), new Subscriber());
      pushService.answer(path, 201, {}, 150);
      devicePaths.push(path);
    }
    pushService.resetPeak();
    await post(server, vera, `@${una.username} to every device`);
    assert.deepEqual(
      devicePaths.map((p) => pushService.on(p).length),
      [1, 1, 1, 1, 1, 1, 1],
    );
    assert.equal(pushService.peak(), 4);
  });

  test("backoff grows from 30 seconds and a longer Retry-After wins, up to 6 hours", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(retryDelayMs(1, undefined, now), 30_000);
    assert.equal(retryDelayMs(2, undefined, now), 120_000);
    assert.equal(retryDelayMs(3, "5", now), 480_000);
    assert.equal(retryDelayMs(1, "600", now), 600_000);
    assert.equal(retryDelayMs(1, "Thu, 01 Jan 2026 00:10:00 GMT", now), 600_000);
    assert.equal(retryDelayMs(1, "soon", now), 30_000);
    assert.equal(retryDelayMs(1, "999999", now), 6 * 3600_000);
  });
});

describe("without ALLOW_PRIVATE_ADDRESSES", () => {
  let strict: TestServer;
  before(async () => {
    strict = await startServer();
  });
  after(() => strict.close());

  test("only https endpoints are taken, addresses must be public, names are checked when pushing", async () => {
    const vic = await strict.user("vic");
    const wes = await strict.user("wes");
    const keys = new Subscriber().keys;
    const attempt = (endpoint: string) =>
      strict.post("/api/v1/push/subscription", {
        token: vic.token,
        json: { subscription: { endpoint, keys }, data: { alerts: { mention: true } } },
      });
    for (const endpoint of [
      `${pushService.url}/strict`,
      "https://127.0.0.1/push",
      "https://[::1]/push",
      "https://10.1.2.3/push",
      "https://169.254.169.254/latest",
    ]) {
      const res = await attempt(endpoint);
      assert.equal(res.status, 422, endpoint);
    }
    const port = new URL(pushService.url).port;
    const named = await attempt(`https://localhost:${port}/strict`);
    assert.equal(named.status, 200, named.text);
    const before = pushService.received.length;
    const res = await strict.post("/api/v1/statuses", { token: wes.token, json: { status: `@vic hello` } });
    assert.equal(res.status, 200);
    await strict.settle();
    // localhost resolves to loopback: refused before connecting, and not tried again.
    assert.equal(pushService.received.length, before);
    const jobs = await strict.rt.db.selectFrom("jobs").select("type").where("type", "=", "push.deliver").execute();
    assert.deepEqual(jobs, []);
    assert.equal((await strict.get("/api/v1/push/subscription", { token: vic.token })).status, 200);
  });
});

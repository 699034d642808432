// The inbox is the open internet: activities signed the way Mastodon signs them (draft-cavage, and
// RFC 9421) are accepted with 202 and handled in a job; a signature that does not verify (a changed
// body, a date out of the hour's window) is refused with 401; a redelivered activity changes
// nothing. (test/federation_inbox_fixtures.test.ts feeds other servers' real payloads.)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newId } from "../src/domain/ids.ts";
import { blockDomain, unblockDomain } from "../src/services/moderation/domain_blocks.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let remote: RemoteServer;
let mallory: RemoteActor & { origin: string };

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  remote = await startRemoteServer();
  mallory = { ...remote.actor("mallory"), origin: remote.origin };
});
after(async () => {
  await server.close();
  await remote.close();
});

/** POSTs `activity` signed by mallory; `sent` replaces the body after signing. Answers the status. */
async function send(
  inbox: string,
  activity: unknown,
  o: { spec?: "draft-cavage" | "rfc9421"; date?: Date; sent?: (body: string) => string } = {},
): Promise<number> {
  const body = JSON.stringify(activity);
  const headers = signedPostHeaders(mallory, inbox, body, o.spec ?? "draft-cavage", { date: o.date });
  const res = await fetch(inbox, { method: "POST", headers, body: o.sent ? o.sent(body) : body });
  await res.arrayBuffer();
  return res.status;
}

let n = 0;
/** A Create of a public Note, as Mastodon writes one. */
function create(text: string) {
  n++;
  const note = `${mallory.id}/statuses/${n}`;
  return {
    "@context": [
      "https://www.w3.org/ns/activitystreams",
      { ostatus: "http://ostatus.org#", sensitive: "as:sensitive", toot: "http://joinmastodon.org/ns#" },
    ],
    id: `${note}/activity`,
    type: "Create",
    actor: mallory.id,
    published: new Date().toISOString(),
    to: ["https://www.w3.org/ns/activitystreams#Public"],
    cc: [`${mallory.id}/followers`],
    object: {
      id: note,
      type: "Note",
      summary: null,
      inReplyTo: null,
      published: new Date().toISOString(),
      url: `${mallory.origin}/@mallory/${n}`,
      attributedTo: mallory.id,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [`${mallory.id}/followers`],
      sensitive: false,
      content: `<p>${text}</p>`,
      contentMap: { en: `<p>${text}</p>` },
      tag: [],
      attachment: [],
    },
  };
}

async function statusesOf(uri: string) {
  return server.rt.db.selectFrom("statuses").select(["id", "content"]).where("uri", "=", uri).execute();
}

const sharedInbox = () => `${server.url}/inbox`;

test("a Create signed as Mastodon signs (draft-cavage) is accepted and stored once", async () => {
  const activity = create("Hello from afar");
  assert.equal(await send(sharedInbox(), activity), 202);
  await server.settle();
  const stored = await statusesOf(activity.object.id);
  assert.equal(stored.length, 1);
  assert.match(stored[0].content, /Hello from afar/);
  // Deduplicated by its effect, not its id: Fedify's record of the ids it ran is not kept, and no
  // job is left.
  const records = await server.rt.db.selectFrom("kv").select("key").execute();
  assert.deepEqual(
    records.filter((r) => r.key.includes("activityIdempotence")),
    [],
  );
  const left = await server.rt.db.selectFrom("jobs").select("id").where("type", "=", "federation.fedify").execute();
  assert.equal(left.length, 0);
  // Redelivered: accepted, and nothing changes.
  assert.equal(await send(sharedInbox(), activity), 202);
  await server.settle();
  assert.equal((await statusesOf(activity.object.id)).length, 1);
  const account = await server.get(`/api/v1/statuses/${stored[0].id}`, { token: alice.token });
  assert.equal(account.body.account.acct, `mallory@${new URL(mallory.origin).host}`);
  assert.equal(account.body.account.uri, mallory.id);
});

test("the public collection is read in all three of its forms: full URI, as:Public and Public", async () => {
  for (const form of ["https://www.w3.org/ns/activitystreams#Public", "as:Public", "Public"]) {
    const activity = create(`public as ${form}`);
    activity.to = [form];
    activity.object.to = [form];
    assert.equal(await send(sharedInbox(), activity), 202);
    await server.settle();
    const [stored] = await statusesOf(activity.object.id);
    assert.ok(stored, form);
    const res = await server.get(`/api/v1/statuses/${stored.id}`, { token: alice.token });
    assert.equal(res.body.visibility, "public", form);
  }
});

test("a Create signed with RFC 9421 is accepted", async () => {
  const activity = create("Hello in the new way");
  assert.equal(await send(`${server.url}/users/alice/inbox`, activity, { spec: "rfc9421" }), 202);
  await server.settle();
  assert.equal((await statusesOf(activity.object.id)).length, 1);
});

test("a follower who asked to hear of every post is notified of a remote status, which is in their home feed", async () => {
  const carol = await server.user("carol");
  const dave = await server.user("dave");
  const known = create("known now");
  assert.equal(await send(sharedInbox(), known), 202);
  await server.settle();
  const author = await server.rt.db
    .selectFrom("accounts")
    .select("id")
    .where("uri", "=", mallory.id)
    .executeTakeFirstOrThrow();
  for (const [follower, notify] of [
    [carol, true],
    [dave, false],
  ] as const) {
    await server.rt.db
      .insertInto("follows")
      .values({
        id: newId(),
        account_id: follower.accountId,
        target_account_id: author.id,
        notify,
        uri: null,
        created_at: new Date(),
      })
      .execute();
  }
  const activity = create("news from afar");
  assert.equal(await send(sharedInbox(), activity), 202);
  await server.settle();
  const [status] = await statusesOf(activity.object.id);
  for (const [follower, heard] of [
    [carol, [["status", status.id]]],
    [dave, []],
  ] as const) {
    const notifications = await server.get("/api/v1/notifications", { token: follower.token });
    assert.deepEqual(
      notifications.body.map((n: { type: string; status: { id: string } }) => [n.type, n.status.id]),
      heard,
    );
    const home = await server.get("/api/v1/timelines/home", { token: follower.token });
    assert.deepEqual(
      home.body.map((s: { id: string }) => s.id),
      [status.id],
    );
  }
});

test("a body changed after signing is refused with 401, whichever form the signature takes", async () => {
  for (const spec of ["draft-cavage", "rfc9421"] as const) {
    const activity = create("Hello, unchanged");
    const sent = (body: string) => body.replace("Hello", "Hullo");
    assert.equal(await send(sharedInbox(), activity, { spec, sent }), 401, spec);
    await server.settle();
    assert.equal((await statusesOf(activity.object.id)).length, 0, spec);
    // The same delivery unchanged is taken.
    assert.equal(await send(sharedInbox(), activity, { spec }), 202, spec);
    await server.settle();
    assert.equal((await statusesOf(activity.object.id)).length, 1, spec);
  }
});

test("a delivery nested too deep or larger than 1 MB is refused with a JSON error, signed or not", async () => {
  // JSON-LD expansion recurses at every level: a thousand levels overflowed the stack (a 500).
  let object: unknown = { type: "Note", id: `${mallory.id}/statuses/deep`, content: "<p>deep</p>" };
  for (let i = 0; i < 1000; i++) object = { type: "Note", id: `${mallory.id}/statuses/deep${i}`, inReplyTo: object };
  const deep = { ...create("deep"), object };
  for (const inbox of [sharedInbox(), `${server.url}/users/alice/inbox`]) {
    const body = JSON.stringify(deep);
    for (const headers of [
      signedPostHeaders(mallory, inbox, body, "draft-cavage"),
      { "content-type": "application/activity+json" },
    ]) {
      const res = await fetch(inbox, { method: "POST", headers, body });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: "Invalid activity: nested deeper than 32 levels" });
    }
  }
  const large = create(`<p>${"x".repeat(1024 * 1024)}</p>`);
  const res = await fetch(sharedInbox(), {
    method: "POST",
    headers: { "content-type": "application/activity+json" },
    body: JSON.stringify(large),
  });
  assert.equal(res.status, 413);
  assert.deepEqual(await res.json(), { error: "Request body is too large" });
  // A delivery nested as deep as real ones are is read as before.
  const tagged = create("with a tag");
  (tagged.object.tag as unknown[]).push({
    type: "Emoji",
    name: ":x:",
    icon: { type: "Image", url: `${mallory.origin}/x.png` },
  });
  assert.equal(await send(sharedInbox(), tagged), 202);
  await server.settle();
  assert.equal((await statusesOf(tagged.object.id)).length, 1);
});

test("a signature dated outside the hour's window is refused with 401", async () => {
  const activity = create("Hello from the past");
  const status = await send(sharedInbox(), activity, { date: new Date(Date.now() - 2 * 3600_000) });
  assert.equal(status, 401);
});

test("a Follow is accepted and the Accept is delivered, signed", async () => {
  const follow = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${mallory.id}#follows/1`,
    type: "Follow",
    actor: mallory.id,
    object: `${server.url}/users/alice`,
  };
  assert.equal(await send(`${server.url}/users/alice/inbox`, follow), 202);
  await server.settle();
  const followers = await server.get(`/api/v1/accounts/${alice.accountId}/followers`, { token: alice.token });
  assert.deepEqual(
    followers.body.map((a: any) => a.uri),
    [mallory.id],
  );
  const accept = remote.deliveries
    .map((d) => ({ ...d, json: JSON.parse(d.body) }))
    .find((d) => d.json.type === "Accept");
  assert.ok(accept, "no Accept arrived");
  assert.equal(accept.path, "/inbox");
  assert.match(String(accept.headers.signature), /keyId="[^"]*\/users\/alice#main-key"/);
  assert.equal(accept.json.actor, `${server.url}/users/alice`);
  assert.equal(accept.json.object.id, follow.id);
  assert.ok(accept.headers.digest);
  assert.match(String(accept.headers["user-agent"]), /^Rookery\//);
});

test("a refused Follow gets a Reject, each new one its own, as on Mastodon; so does one from a domain the user blocks", async () => {
  const carol = await server.user("refuser");
  const followOf = (id: string) => ({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${mallory.id}#follows/${id}`,
    type: "Follow",
    actor: mallory.id,
    object: `${server.url}/users/refuser`,
  });
  const inbox = `${server.url}/users/refuser/inbox`;
  const answers = (type: string, follow: { id: string }) =>
    remote.deliveries.map((d) => JSON.parse(d.body)).filter((a) => a.type === type && a.object?.id === follow.id);
  const first = followOf(newId());
  assert.equal(await send(inbox, first), 202);
  await server.settle();
  assert.equal(answers("Accept", first).length, 1);
  const mallorys = await server.rt.db
    .selectFrom("accounts")
    .select(["id", "domain"])
    .where("uri", "=", mallory.id)
    .executeTakeFirstOrThrow();
  assert.equal((await server.post(`/api/v1/accounts/${mallorys.id}/block`, { token: carol.token })).status, 200);

  const refused = followOf(newId());
  assert.equal(await send(inbox, refused), 202);
  await server.settle();
  assert.equal(answers("Reject", refused).length, 1);
  // A new Follow is answered on its own (its server may have lost the first Reject).
  const again = followOf(newId());
  assert.equal(await send(inbox, again), 202);
  await server.settle();
  assert.equal(answers("Reject", again).length, 1);
  assert.equal(answers("Reject", refused).length, 1);

  // Blocking mallory's domain refuses the Follow too.
  assert.equal((await server.post(`/api/v1/accounts/${mallorys.id}/unblock`, { token: carol.token })).status, 200);
  await server.rt.db
    .insertInto("account_domain_blocks")
    .values({ id: newId(), account_id: carol.accountId, domain: mallorys.domain!, created_at: new Date() })
    .execute();
  const byDomain = followOf(newId());
  assert.equal(await send(inbox, byDomain), 202);
  await server.settle();
  assert.equal(answers("Reject", byDomain).length, 1);
  assert.equal(answers("Accept", byDomain).length, 0);
  const followers = await server.get(`/api/v1/accounts/${carol.accountId}/followers`, { token: carol.token });
  assert.deepEqual(followers.body, []);
});

test("a suspended server's activities are refused", async () => {
  const host = new URL(mallory.origin).host;
  await blockDomain(server.rt, { domain: host.replace(/:\d+$/, ""), severity: "suspend" });
  try {
    const activity = create("Hello while suspended");
    // Refused at the door (403), and nothing is taken in.
    assert.equal(await send(sharedInbox(), activity), 403);
    await server.settle();
    assert.equal((await statusesOf(activity.object.id)).length, 0);
  } finally {
    await unblockDomain(server.rt, host.replace(/:\d+$/, ""));
  }
});

test("a server whose media are rejected has its statuses stored without attachments and custom emojis", async () => {
  const domain = new URL(mallory.origin).hostname;
  await blockDomain(server.rt, { domain, severity: "noop", rejectMedia: true });
  try {
    const activity = create("Look :wave:");
    const emoji = `${mallory.origin}/emojis/wave.png`;
    Object.assign(activity.object, {
      attachment: [{ type: "Document", mediaType: "image/png", url: `${mallory.origin}/files/a.png`, name: "alt" }],
      tag: [{ type: "Emoji", name: ":wave:", icon: { type: "Image", url: emoji } }],
    });
    (activity["@context"][1] as Record<string, string>).Emoji = "toot:Emoji";
    assert.equal(await send(sharedInbox(), activity), 202);
    await server.settle();
    const [stored] = await statusesOf(activity.object.id);
    const seen = await server.get(`/api/v1/statuses/${stored.id}`, { token: alice.token });
    assert.deepEqual(seen.body.media_attachments, []);
    assert.deepEqual(seen.body.emojis, []);
    const kept = await server.rt.db.selectFrom("remote_emojis").select("image_url").execute();
    assert.deepEqual(kept, []);
  } finally {
    await unblockDomain(server.rt, domain);
  }
});

test("an Update keeps the history and notifies the local booster and a newly mentioned account", async () => {
  const bob = await server.user("bob");
  const activity = create("before the edit");
  assert.equal(await send(sharedInbox(), activity), 202);
  await server.settle();
  const [status] = await statusesOf(activity.object.id);
  assert.equal((await server.post(`/api/v1/statuses/${status.id}/reblog`, { token: alice.token })).status, 200);
  const bobUri = (
    await server.rt.db.selectFrom("accounts").select("uri").where("id", "=", bob.accountId).executeTakeFirstOrThrow()
  ).uri;
  const edited = {
    ...activity.object,
    content: "<p>after the edit, @bob</p>",
    contentMap: { en: "<p>after the edit, @bob</p>" },
    tag: [{ type: "Mention", href: bobUri, name: "@bob" }],
    updated: new Date(Date.now() + 1000).toISOString(),
  };
  const update = { ...activity, id: `${activity.object.id}#updates/1`, type: "Update", object: edited };
  assert.equal(await send(sharedInbox(), update), 202);
  await server.settle();

  const history = await server.get(`/api/v1/statuses/${status.id}/history`, { token: alice.token });
  assert.equal(history.status, 200);
  assert.deepEqual(
    history.body.map((v: { content: string }) => v.content),
    ["<p>before the edit</p>", "<p>after the edit, @bob</p>"],
  );
  const aliceHeard = await server.get("/api/v1/notifications", { token: alice.token, query: { types: ["update"] } });
  assert.deepEqual(
    aliceHeard.body.map((n: { type: string; status: { id: string } }) => [n.type, n.status.id]),
    [["update", status.id]],
  );
  const bobHeard = await server.get("/api/v1/notifications", { token: bob.token, query: { types: ["mention"] } });
  assert.deepEqual(
    bobHeard.body.map((n: { type: string; status: { id: string } }) => [n.type, n.status.id]),
    [["mention", status.id]],
  );
  // Delivered again, it changes nothing.
  assert.equal(await send(sharedInbox(), update), 202);
  await server.settle();
  const again = await server.get(`/api/v1/statuses/${status.id}/history`, { token: alice.token });
  assert.equal(again.body.length, 2);
});

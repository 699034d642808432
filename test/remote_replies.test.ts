// Replies from elsewhere: opening the thread of another server's status answers at once with a
// Mastodon-Async-Refresh header, and a job walks the status's replies collection (its pages, and
// the replies' own collections), so that replies only the origin knows appear; the refresh can be
// followed at /api/v1_alpha/async_refreshes/:id. A status is walked once in the cool-down, not
// while it is new, and not for someone signed out; a listed reply that answers something else is
// not taken. Between two Rookery servers, the origin serves the replies collection that the other walks.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFederatedServers } from "./federation_rig.ts";
import { post } from "./fixtures.ts";
import { type RemoteServer, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const AS = "https://www.w3.org/ns/activitystreams";

let server: TestServer;
let alice: TestUser;
let remote: RemoteServer;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  remote = await startRemoteServer();
});
after(async () => {
  await server.close();
  await remote.close();
});

type Json = Record<string, any>;

async function waitFor<T>(what: string, check: () => Promise<T> | T): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const path = (uri: string) => new URL(uri).pathname;

/** Serves a public Note by `author`, an hour old, whose replies collection lists `replies` on pages of one. */
function note(author: string, n: string, text: string, inReplyTo: string | null, replies: string[]): string {
  const actor = remote.actor(author);
  const id = `${actor.id}/statuses/${n}`;
  const collection = `${id}/replies`;
  const page = (i: number) => `${collection}/pages/${i}`;
  remote.documents.set(path(id), {
    "@context": AS,
    id,
    type: "Note",
    attributedTo: actor.id,
    inReplyTo,
    content: `<p>${text}</p>`,
    published: new Date(Date.now() - 3600_000).toISOString(),
    to: [PUBLIC],
    cc: [`${actor.id}/followers`],
    // As Mastodon serves it: the collection with its first page embedded, later pages by URL.
    replies: {
      id: collection,
      type: "Collection",
      first: {
        id: page(0),
        type: "CollectionPage",
        partOf: collection,
        items: replies.slice(0, 1),
        next: replies.length > 1 ? page(1) : undefined,
      },
    },
  });
  for (let i = 1; i < replies.length; i++) {
    remote.documents.set(path(page(i)), {
      "@context": AS,
      id: page(i),
      type: "CollectionPage",
      partOf: collection,
      items: [replies[i]],
      next: i + 1 < replies.length ? page(i + 1) : undefined,
    });
  }
  return id;
}

async function resolve(uri: string): Promise<string> {
  const res = await server.get("/api/v2/search", {
    token: alice.token,
    query: { q: uri, resolve: "true", type: "statuses" },
  });
  assert.equal(res.body.statuses?.length, 1, res.text);
  return res.body.statuses[0].id;
}

const context = (id: string, token: string | null = alice.token) =>
  server.get(`/api/v1/statuses/${id}/context`, { token });

test("a remote thread's replies, known only to its server, arrive after the context is opened", async () => {
  const base = `${remote.origin}/users`;
  const root = `${base}/bob/statuses/1`;
  const first = `${base}/carol/statuses/2`;
  const second = `${base}/dave/statuses/3`;
  const deeper = `${base}/bob/statuses/4`;
  const stray = `${base}/erin/statuses/5`;
  note("bob", "1", "Where do rooks nest?", null, [first, second, stray]);
  note("carol", "2", "In rookeries", root, [deeper]);
  note("dave", "3", "High in the trees", root, []);
  note("bob", "4", "Thanks!", first, []);
  // Listed among the root's replies, but answering nothing of this thread.
  note("erin", "5", "Unrelated", null, []);

  const id = await resolve(root);
  const opened = await context(id);
  assert.equal(opened.status, 200, opened.text);
  assert.deepEqual(opened.body.descendants, []);
  const header = opened.headers.get("mastodon-async-refresh") ?? "";
  const match = /^id="([^"]+)", retry=3, result_count=0$/.exec(header);
  assert.ok(match, `header: ${header}`);

  const refresh = await waitFor("the refresh to finish", async () => {
    const res = await server.get(`/api/v1_alpha/async_refreshes/${match[1]}`, { token: alice.token });
    assert.equal(res.status, 200, res.text);
    return res.body.async_refresh.status === "finished" ? res.body.async_refresh : null;
  });
  assert.deepEqual(refresh, { id: match[1], status: "finished", result_count: 3 });

  const whole = await context(id);
  assert.deepEqual(whole.body.descendants.map((s: Json) => s.uri).sort(), [first, second, deeper].sort());
  assert.equal(whole.headers.get("mastodon-async-refresh"), null, "not fetched again within the cool-down");
  const stored = await server.rt.db.selectFrom("statuses").select("id").where("uri", "=", stray).execute();
  assert.deepEqual(stored, []);
});

test("no refresh for someone signed out, for a status just posted, or with an id not of this server", async () => {
  const fresh = note("bob", "10", "Just now", null, []);
  (remote.documents.get(path(fresh)) as Json).published = new Date().toISOString();
  const freshId = await resolve(fresh);
  assert.equal((await context(freshId)).headers.get("mastodon-async-refresh"), null);

  const old = await resolve(note("bob", "11", "An hour ago", null, []));
  const signedOut = await context(old, null);
  assert.equal(signedOut.status, 200, signedOut.text);
  assert.equal(signedOut.headers.get("mastodon-async-refresh"), null);
  assert.match((await context(old)).headers.get("mastodon-async-refresh") ?? "", /^id="/);

  for (const bad of ["nonsense", "Y29udGV4dDoxOnJlZnJlc2g--forged", `${"a".repeat(600)}--b`]) {
    const res = await server.get(`/api/v1_alpha/async_refreshes/${bad}`, { token: alice.token });
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.body, { error: "Record not found" });
  }
  assert.equal((await server.get("/api/v1_alpha/async_refreshes/x")).status, 401);
});

test("between two Rookery servers: the origin serves a status's replies collection, and the other walks it", async () => {
  const [origin] = await startFederatedServers(1);
  try {
    const poster = await origin.user("poster");
    const first = await origin.user("first");
    const second = await origin.user("second");
    const root = await post(origin, poster, "Who has seen the rooks?");
    const one = await post(origin, first, { status: "I have", in_reply_to_id: root.id });
    const two = await post(origin, second, { status: "Me too", in_reply_to_id: one.id });
    const hidden = await post(origin, second, {
      status: "Only for my followers",
      in_reply_to_id: root.id,
      visibility: "private",
    });

    const served = await origin.get(new URL(`${root.uri}/replies`).pathname, {
      headers: { accept: "application/activity+json" },
    });
    assert.equal(served.status, 200, served.text);
    const collection = JSON.parse(served.text);
    assert.equal(collection.type, "Collection");
    assert.equal(collection.id, `${root.uri}/replies`);
    // One item is written as JSON-LD compacts it: a plain string.
    assert.deepEqual([collection.first.items].flat(), [one.uri]);
    const note = JSON.parse(
      (await origin.get(new URL(root.uri).pathname, { headers: { accept: "application/activity+json" } })).text,
    );
    assert.equal(note.replies, `${root.uri}/replies`);

    const id = await resolve(root.uri);
    await server.rt.db
      .updateTable("statuses")
      .set({ created_at: new Date(Date.now() - 3600_000) })
      .where("id", "=", id)
      .execute();
    const opened = await context(id);
    assert.match(opened.headers.get("mastodon-async-refresh") ?? "", /^id="/);
    const whole = await waitFor("the replies", async () => {
      const res = await context(id);
      return res.body.descendants.length === 2 ? res.body.descendants : null;
    });
    assert.deepEqual(whole.map((s: Json) => s.uri).sort(), [one.uri, two.uri].sort());
    assert.equal(
      whole.some((s: Json) => s.uri === hidden.uri),
      false,
    );
  } finally {
    await origin.close();
  }
});

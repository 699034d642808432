// Policy toward other servers and strangers: instance domain blocks on the accounts of a blocked
// server (old and new), the decisions federation asks for, and the API and pages closed to anonymous
// readers in secure mode and limited federation mode.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { allowDomain, disallowDomain } from "../src/services/moderation/domain_allows.ts";
import { blockDomain, unblockDomain } from "../src/services/moderation/domain_blocks.ts";
import { domainPolicy } from "../src/services/moderation/federation_policy.ts";
import { loadActivity } from "./activity_fixtures.ts";
import { insertStatus, remoteAccount } from "./fixtures.ts";
import { type RemoteServer, signedGetHeaders, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

describe("instance domain blocks", () => {
  let server: TestServer;
  let alice: TestUser;
  before(async () => {
    server = await startServer();
    alice = await server.user("alice");
  });
  after(() => server.close());

  const standing = async (id: string) => {
    const res = await server.get(`/api/v1/accounts/${id}`, { token: alice.token });
    return res.status === 410 ? "suspended" : res.body.limited ? "silenced" : "open";
  };
  const publicTimeline = async () =>
    (await server.get("/api/v1/timelines/public", { token: alice.token })).body.map((s: { id: string }) => s.id);

  test("silence limits the server's accounts, old and new, subdomains too, and lifting it restores them", async () => {
    const old = await remoteAccount(server, "old", "loud.example");
    const sub = await remoteAccount(server, "sub", "a.loud.example");
    const other = await remoteAccount(server, "other", "quiet.example");
    const status = await insertStatus(server, old, { local: false, content: "<p>shouting</p>" });
    assert.ok((await publicTimeline()).includes(status));

    await blockDomain(server.rt, {
      domain: "loud.example",
      severity: "silence",
      rejectMedia: true,
      rejectReports: true,
    });
    assert.deepEqual(
      [await standing(old), await standing(sub), await standing(other)],
      ["silenced", "silenced", "open"],
    );
    assert.ok(!(await publicTimeline()).includes(status), "off the public timeline");
    const newcomer = await remoteAccount(server, "newcomer", "loud.example");
    assert.equal(await standing(newcomer), "silenced", "accounts that arrive later are limited too");
    assert.deepEqual(await domainPolicy(server.rt, "b.loud.example"), {
      refused: false,
      silenced: true,
      rejectMedia: true,
      rejectReports: true,
    });

    await unblockDomain(server.rt, "loud.example");
    assert.deepEqual([await standing(old), await standing(sub), await standing(newcomer)], ["open", "open", "open"]);
    assert.ok((await publicTimeline()).includes(status));
    assert.deepEqual(await domainPolicy(server.rt, "loud.example"), {
      refused: false,
      silenced: false,
      rejectMedia: false,
      rejectReports: false,
    });
  });

  test("suspend refuses the server; a change of severity and lifting leave accounts limited by hand alone", async () => {
    const mallory = await remoteAccount(server, "mallory", "bad.example");
    const byHand = await remoteAccount(server, "byhand", "bad.example", { silenced_at: new Date(Date.now() - 60_000) });
    await blockDomain(server.rt, { domain: "bad.example", severity: "suspend" });
    assert.equal(await standing(mallory), "suspended");
    assert.equal((await domainPolicy(server.rt, "bad.example")).refused, true);
    assert.equal((await domainPolicy(server.rt, "x.bad.example")).refused, true);
    assert.equal((await domainPolicy(server.rt, "notbad.example")).refused, false);

    await blockDomain(server.rt, { domain: "bad.example", severity: "silence" });
    assert.deepEqual([await standing(mallory), await standing(byHand)], ["silenced", "silenced"]);
    await blockDomain(server.rt, { domain: "bad.example", severity: "noop" });
    assert.deepEqual([await standing(mallory), await standing(byHand)], ["open", "silenced"]);
    await unblockDomain(server.rt, "bad.example");
    assert.equal(await standing(byHand), "silenced", "a limit set by hand stays");
  });

  test("a more specific block wins over its parent's", async () => {
    await blockDomain(server.rt, { domain: "parent.example", severity: "suspend" });
    await blockDomain(server.rt, { domain: "ok.parent.example", severity: "noop" });
    assert.equal((await domainPolicy(server.rt, "ok.parent.example")).refused, false);
    assert.equal((await domainPolicy(server.rt, "x.ok.parent.example")).refused, false);
    assert.equal((await domainPolicy(server.rt, "else.parent.example")).refused, true);
  });
});

describe("secure mode and limited federation mode", () => {
  const anonymous = async (server: TestServer, method: string, path: string, token?: string) =>
    (await server.request(method, path, { token, json: method === "POST" ? {} : undefined })).status;

  test("limited federation mode: the API and the pages are for signed-in users", async () => {
    const server = await startServer({ env: { LIMITED_FEDERATION_MODE: "true" } });
    try {
      const alice = await server.user("alice");
      const res = await server.get("/api/v1/timelines/public");
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { error: "This method requires an authenticated user" });
      assert.equal((await server.get("/api/v1/timelines/public", { token: alice.token })).status, 200);
      assert.equal(await anonymous(server, "GET", `/api/v1/accounts/${alice.accountId}`), 401);
      assert.equal(await anonymous(server, "GET", "/api/v1/instance"), 401, "as on Mastodon");
      assert.equal(await anonymous(server, "GET", "/api/v2/instance/"), 401);
      assert.equal(await anonymous(server, "GET", "/api/v1/custom_emojis"), 200);
      const app = await server.post("/api/v1/apps", {
        json: { client_name: "Members", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read" },
      });
      assert.equal(app.status, 200, "apps can still register to sign in");
      const appToken = await server.post("/oauth/token", {
        form: {
          grant_type: "client_credentials",
          client_id: app.body.client_id,
          client_secret: app.body.client_secret,
        },
      });
      assert.equal(
        await anonymous(server, "GET", "/api/v1/timelines/public", appToken.body.access_token),
        401,
        "an app's own token is not a user",
      );
      for (const path of ["/@alice", `/@alice/123`]) {
        const page = await server.get(path);
        assert.equal(page.status, 401, path);
        assert.ok(page.text.includes("members only"), path);
      }
    } finally {
      await server.close();
    }
  });

  test("secure mode: the API is for signed-in users, the instance and the pages stay open", async () => {
    const server = await startServer({ env: { AUTHORIZED_FETCH: "true" } });
    try {
      const alice = await server.user("alice");
      assert.equal(await anonymous(server, "GET", "/api/v1/timelines/public"), 401);
      assert.equal(await anonymous(server, "GET", "/api/v1/instance"), 200);
      assert.equal(await anonymous(server, "GET", "/api/v2/instance"), 200);
      assert.equal(await anonymous(server, "GET", "/api/v1/instance/rules"), 200);
      assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: alice.token })).status, 200);
      assert.equal((await server.get("/@alice")).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe("refused servers at the ActivityPub endpoints", () => {
  /** A Follow of alice from `remote`'s sender, signed; the inbox's status. */
  async function follow(server: TestServer, remote: RemoteServer): Promise<number> {
    const sender = remote.actor("sender");
    const activity = loadActivity("mastodon/follow", {
      actor: sender.id,
      origin: remote.origin,
      target: `${server.url}/users/alice`,
    });
    activity.id = `${sender.id}#follows/${Date.now()}`;
    const body = JSON.stringify(activity);
    const url = `${server.url}/users/alice/inbox`;
    const res = await fetch(url, {
      method: "POST",
      headers: signedPostHeaders(sender, url, body, "draft-cavage"),
      body,
    });
    await res.arrayBuffer();
    await server.settle();
    return res.status;
  }
  const followers = async (server: TestServer, alice: TestUser) =>
    (await server.get(`/api/v1/accounts/${alice.accountId}/followers`, { token: alice.token })).body.length;

  test("a suspended server's deliveries are refused with 403 and change nothing; lifting the block lets them in", async () => {
    const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
    const remote = await startRemoteServer();
    try {
      const alice = await server.user("alice");
      await blockDomain(server.rt, { domain: "127.0.0.1", severity: "suspend" });
      assert.equal(await follow(server, remote), 403);
      assert.equal(await followers(server, alice), 0);
      await blockDomain(server.rt, { domain: "127.0.0.1", severity: "silence" });
      assert.equal(await follow(server, remote), 202, "silence limits, it does not refuse");
      await unblockDomain(server.rt, "127.0.0.1");
      assert.equal(await follow(server, remote), 202);
    } finally {
      await server.close();
      await remote.close();
    }
  });

  test("limited federation mode: only allowed servers are heard", async () => {
    const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true", LIMITED_FEDERATION_MODE: "true" } });
    const remote = await startRemoteServer();
    try {
      const alice = await server.user("alice");
      assert.equal(await follow(server, remote), 403);
      assert.equal(await followers(server, alice), 0);
      assert.equal((await allowDomain(server.rt, remote.host)).domain, remote.host);
      assert.equal(await follow(server, remote), 202);
      assert.equal(await followers(server, alice), 1);
      await disallowDomain(server.rt, remote.host);
      assert.equal((await domainPolicy(server.rt, remote.host)).refused, true);
      await assert.rejects(allowDomain(server.rt, "not a domain"), /not a valid domain/);
    } finally {
      await server.close();
      await remote.close();
    }
  });

  test("secure mode: actors and objects need a signed fetch from a server not refused", async () => {
    const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true", AUTHORIZED_FETCH: "true" } });
    const remote = await startRemoteServer();
    try {
      const alice = await server.user("alice");
      const status = (
        await server.post("/api/v1/statuses", { token: alice.token, json: { status: "signed eyes only" } })
      ).body;
      const as = { accept: "application/activity+json" };
      const reader = remote.actor("reader");
      for (const path of ["/users/alice", `/users/alice/statuses/${status.id}`, "/@alice"]) {
        assert.equal((await server.get(path, { headers: as })).status, 401, `${path} unsigned`);
        const signed = await server.get(path, { headers: signedGetHeaders(reader, `${server.url}${path}`) });
        assert.equal(signed.status, 200, `${path} signed`);
      }
      assert.equal((await server.get("/users/instance.actor", { headers: as })).status, 200, "the instance actor");
      assert.equal((await server.get("/@alice")).status, 200, "the page for people");
      await blockDomain(server.rt, { domain: "127.0.0.1", severity: "suspend" });
      const refusedRead = await server.get("/users/alice", {
        headers: signedGetHeaders(reader, `${server.url}/users/alice`),
      });
      assert.equal(refusedRead.status, 403);
    } finally {
      await server.close();
      await remote.close();
    }
  });
});

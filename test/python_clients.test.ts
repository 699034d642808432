// Mastodon.py and toot (test/python.ts) against the server: Mastodon.py's `stream_user` and
// `stream_public` hear update, notification, status.update and delete; Mastodon.py's `search_v2`,
// `account_lookup` and follow, and toot's `search` and `follow`, find and follow people by handle.
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { follow, freshUser, post } from "./fixtures.ts";
import { PYTHON, skipMastodonPy, skipToot, tootSignIn } from "./python.ts";
import { startServer, type TestServer } from "./rig.ts";
import { subscribed, until } from "./streaming_client.ts";

const run = promisify(execFile);

let server: TestServer;
let dir: string;

before(async () => {
  server = await startServer();
  dir = mkdtempSync(join(tmpdir(), "rookery-py-"));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

// Prints each event Mastodon.py's listener hears as a JSON line: [event, id, detail].
const LISTEN = `
import json, sys, time
from mastodon import Mastodon, StreamListener
api = Mastodon(access_token=sys.argv[2], api_base_url=sys.argv[1], version_check_mode="none")
def out(*fields):
    print(json.dumps([str(f) for f in fields]), flush=True)
class Listener(StreamListener):
    def on_update(self, status): out("update", status["id"], status["content"])
    def on_status_update(self, status): out("status.update", status["id"], status["content"])
    def on_delete(self, status_id): out("delete", status_id, "")
    def on_notification(self, n): out("notification", n["status"]["id"] if n["status"] else "", n["type"])
    def on_abort(self, err): out("abort", "", err)
getattr(api, "stream_" + sys.argv[3])(Listener(), run_async=True)
while True:
    time.sleep(1)
`;

/** Mastodon.py listening to one stream, its events collected as they come. */
function listen(token: string, stream: "user" | "public") {
  const child: ChildProcess = spawn(PYTHON, ["-c", LISTEN, server.url, token, stream]);
  const events: string[][] = [];
  let buffer = "";
  child.stdout!.on("data", (chunk) => {
    buffer += String(chunk);
    for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
      events.push(JSON.parse(buffer.slice(0, end)));
      buffer = buffer.slice(end + 1);
    }
  });
  let errors = "";
  child.stderr!.on("data", (chunk) => {
    errors += String(chunk);
  });
  return { events, stop: () => child.kill(), errors: () => errors };
}

test("Mastodon.py: stream_user and stream_public hear update, notification, status.update and delete", {
  skip: skipMastodonPy,
}, async (t) => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  await follow(server, bob, alice);
  const user = listen(bob.token, "user");
  const pub = listen(bob.token, "public");
  t.after(() => {
    user.stop();
    pub.stop();
  });
  await subscribed(server, 2).catch((e) => {
    throw new Error(`${e.message}: ${user.errors()} ${pub.errors()}`);
  });

  const status = await post(server, alice, { status: `hello @${bob.username}` });
  const edited = await server.put(`/api/v1/statuses/${status.id}`, {
    token: alice.token,
    json: { status: `hello again @${bob.username}` },
  });
  assert.equal(edited.status, 200);
  assert.equal((await server.delete(`/api/v1/statuses/${status.id}`, { token: alice.token })).status, 200);

  const names = (events: string[][]) => events.map(([name]) => name);
  await until(() => names(user.events).includes("delete") && names(pub.events).includes("delete"), 15_000, "deletes");
  assert.deepEqual(names(user.events).sort(), ["delete", "notification", "status.update", "update"]);
  assert.deepEqual(names(pub.events), ["update", "status.update", "delete"]);
  for (const events of [user.events, pub.events]) {
    const byName = new Map(events.map((e) => [e[0], e]));
    assert.equal(byName.get("update")?.[1], status.id);
    assert.match(byName.get("update")?.[2] ?? "", /hello /);
    assert.equal(byName.get("status.update")?.[1], status.id);
    assert.match(byName.get("status.update")?.[2] ?? "", /hello again/);
    assert.equal(byName.get("delete")?.[1], status.id);
  }
  assert.deepEqual(
    user.events.find(([name]) => name === "notification"),
    ["notification", status.id, "mention"],
  );
});

const SEARCH = `
import json, sys
from mastodon import Mastodon
api = Mastodon(access_token=sys.argv[2], api_base_url=sys.argv[1], version_check_mode="none")
found = api.search_v2(sys.argv[3])
tags = api.search_v2("#" + sys.argv[4], result_type="hashtags")
statuses = api.search_v2(sys.argv[5], result_type="statuses")
looked_up = api.account_lookup(sys.argv[6])
relationship = api.account_follow(looked_up["id"])
print(json.dumps({
    "accounts": [a["acct"] for a in found["accounts"]],
    "tags": [t["name"] for t in tags["hashtags"]],
    "statuses": [str(s["id"]) for s in statuses["statuses"]],
    "lookup": [str(looked_up["id"]), looked_up["acct"]],
    "following": relationship["following"],
}))
`;

test("Mastodon.py: search_v2, account_lookup and following by handle", { skip: skipMastodonPy }, async () => {
  const carol = await freshUser(server, "carol");
  const dave = await freshUser(server, "dave");
  // Others find public statuses of accounts that opted in, as on Mastodon.
  await server.patch("/api/v1/accounts/update_credentials", { token: dave.token, json: { indexable: true } });
  const status = await post(server, dave, "pelicans gather at dawn #birdwatching");
  const domain = server.rt.config.localDomain;
  const { stdout } = await run(PYTHON, [
    "-c",
    SEARCH,
    server.url,
    carol.token,
    dave.username.slice(0, 3),
    "birdwatch",
    "pelicans",
    `${dave.username}@${domain}`,
  ]);
  const result = JSON.parse(stdout);
  assert.ok(result.accounts.includes(dave.username), stdout);
  assert.deepEqual(result.tags, ["birdwatching"]);
  assert.deepEqual(result.statuses, [status.id]);
  assert.deepEqual(result.lookup, [dave.accountId, dave.username]);
  assert.equal(result.following, true);
  const rel = await server.get(`/api/v1/accounts/relationships?id[]=${dave.accountId}`, { token: carol.token });
  assert.equal(rel.body[0].following, true);
});

test("toot: search, and follow by name and by full handle", { skip: skipToot }, async () => {
  const erin = await freshUser(server, "erin");
  const frank = await freshUser(server, "frank");
  const grace = await freshUser(server, "grace");
  await post(server, frank, "sketching the harbour #urbansketch");
  tootSignIn(dir, server, erin);
  const toot = (...args: string[]) => run("toot", args, { env: { ...process.env, XDG_CONFIG_HOME: dir } });

  const found = await toot("search", frank.username);
  assert.match(found.stdout, new RegExp(`@${frank.username}\\b`));
  const tags = await toot("search", "#urbansk");
  assert.match(tags.stdout, /#urbansketch/);

  const byName = await toot("follow", frank.username);
  assert.match(byName.stdout, /You are now following/);
  const byHandle = await toot("follow", `@${grace.username}@${server.rt.config.localDomain}`);
  assert.match(byHandle.stdout, /You are now following/);
  const rel = await server.get(`/api/v1/accounts/relationships?id[]=${frank.accountId}&id[]=${grace.accountId}`, {
    token: erin.token,
  });
  assert.deepEqual(
    rel.body.map((r: { following: boolean }) => r.following),
    [true, true],
  );
});

// Every job type run twice leaves the database as running it once does: a worker that dies between
// a job's effect and its deletion runs the job again (src/jobs/queue.ts). The worker is off; each
// case causes its job through the API, and the harness runs every job it finds twice, comparing every
// table (and the jobs still waiting) after each run. A job type without a case fails the test: add
// one to `cases` when you add a type.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import sharp from "sharp";
import { dispatcher, jobTypes } from "../src/jobs/handlers.ts";
import type { JobType } from "../src/jobs/queue.ts";
import { addAlias } from "../src/services/accounts/aliases.ts";
import { moveAccount } from "../src/services/accounts/moves.ts";
import { addAnnouncement } from "../src/services/announcements/announcements.ts";
import { restoreFeeds } from "../src/services/feeds/maintenance.ts";
import { requestArchive } from "../src/services/portability/archive.ts";
import { createImport } from "../src/services/portability/imports.ts";
import { warmActor } from "./federation_rig.ts";
import { follow } from "./fixtures.ts";
import { type PushService, Subscriber, startPushService } from "./push_receiver.ts";
import { dialectUnderTest, startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let writer: TestUser;
let fan: TestUser;
let booster: TestUser;
/** Who imports a file of follows (and then overwrites them). */
let importer: TestUser;

let pushService: PushService;
/** Another Rookery, whose user follows `writer` from there. */
let peer: TestServer;

before(async () => {
  pushService = await startPushService();
  server = await startServer({ worker: false, env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  peer = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  writer = await server.user("writer");
  fan = await server.user("fan");
  booster = await server.user("booster");
});
after(async () => {
  await server.close();
  await peer.close();
  await pushService.close();
});

const NOT_COMPARED = new Set(["jobs", "kysely_migration", "kysely_migration_lock"]);

async function tables(): Promise<string[]> {
  const rows =
    dialectUnderTest === "postgres"
      ? await sql<{ name: string }>`
          select table_name as name from information_schema.tables
          where table_schema = ${server.schema} and table_type = 'BASE TABLE'`.execute(server.rt.db)
      : await sql<{ name: string }>`
          select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(server.rt.db);
  return rows.rows.map((r) => r.name).filter((n) => !NOT_COMPARED.has(n));
}

const json = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? String(v) : v));

/** Every row of every table, and the type and payload of every job waiting. */
async function snapshot(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await tables()) {
    const rows = await sql`select * from ${sql.table(table)}`.execute(server.rt.db);
    out[table] = rows.rows.map(json).sort();
  }
  const jobs = await server.rt.db.selectFrom("jobs").select(["type", "payload"]).execute();
  out["jobs waiting"] = jobs.map(json).sort();
  return out;
}

const ran = new Set<string>();

/** Runs every due job twice, checking that the second run changes nothing, until none is left. */
async function runEachTwice(): Promise<void> {
  const run = dispatcher(server.rt);
  for (;;) {
    const job = await server.rt.db
      .selectFrom("jobs")
      .selectAll()
      .where("run_at", "<=", new Date())
      .orderBy("run_at")
      .orderBy("id")
      .executeTakeFirst();
    if (!job) return;
    await run(job.type, job.payload, { id: job.id });
    const once = await snapshot();
    await run(job.type, job.payload, { id: job.id });
    assert.deepEqual(await snapshot(), once, `${job.type} ${json(job.payload)} run a second time`);
    await server.rt.db.deleteFrom("jobs").where("id", "=", job.id).execute();
    ran.add(job.type);
  }
}

/** How many jobs of `type` wait. */
async function jobsOf(type: JobType): Promise<number> {
  return (await server.rt.db.selectFrom("jobs").select("id").where("type", "=", type).execute()).length;
}

/** Waits until `condition` holds, for up to a minute. */
async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `waited a minute for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Makes the waiting jobs of `type` due now. */
async function dueNow(type: JobType): Promise<void> {
  await server.rt.db.updateTable("jobs").set({ run_at: new Date() }).where("type", "=", type).execute();
}

async function postAs(user: TestUser, body: Record<string, unknown>): Promise<any> {
  const res = await server.post("/api/v1/statuses", { token: user.token, json: body });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** What makes each job type run, through the API wherever one exists. */
const cases: Record<JobType, () => Promise<void>> = {
  async "mail.send"() {
    const app = await server.post("/api/v1/apps", {
      json: { client_name: "Twice", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" },
    });
    const token = await server.post("/oauth/token", {
      form: {
        grant_type: "client_credentials",
        client_id: app.body.client_id,
        client_secret: app.body.client_secret,
        scope: "read write",
      },
    });
    const res = await server.post("/api/v1/accounts", {
      token: token.body.access_token,
      form: { username: "newbie", email: "newbie@mail.test", password: "long enough password", agreement: "true" },
    });
    assert.equal(res.status, 200, res.text);
  },
  async "feeds.merge"() {
    await follow(server, fan, writer, { notify: true });
    await follow(server, booster, writer);
    const list = await server.post("/api/v1/lists", { token: fan.token, json: { title: "Writers" } });
    await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
      token: fan.token,
      json: { account_ids: [writer.accountId] },
    });
  },
  async "feeds.fanout"() {
    await postAs(writer, { status: "Hello #birds" });
  },
  async "statuses.notify_subscribers"() {
    await postAs(writer, { status: "For my subscribers" });
  },
  async "statuses.notify_mentioned"() {
    await postAs(writer, { status: `Hi @${fan.username}` });
    await postAs(writer, { status: `Just us, @${fan.username}`, visibility: "direct" });
  },
  async "statuses.notify_boosters"() {
    const status = await postAs(writer, { status: "Before the edit" });
    await runEachTwice();
    assert.equal((await server.post(`/api/v1/statuses/${status.id}/reblog`, { token: booster.token })).status, 200);
    await runEachTwice();
    const edit = await server.put(`/api/v1/statuses/${status.id}`, {
      token: writer.token,
      json: { status: "After the edit" },
    });
    assert.equal(edit.status, 200, edit.text);
  },
  async "feeds.remove"() {
    const status = await postAs(writer, { status: "Soon gone" });
    await runEachTwice();
    assert.equal((await server.delete(`/api/v1/statuses/${status.id}`, { token: writer.token })).status, 200);
  },
  async "feeds.unmerge"() {
    assert.equal(
      (await server.post(`/api/v1/accounts/${writer.accountId}/unfollow`, { token: booster.token })).status,
      200,
    );
  },
  async "polls.expire"() {
    const status = await postAs(writer, { status: "Tea?", poll: { options: ["Tea", "Coffee"], expires_in: 300 } });
    const vote = await server.post(`/api/v1/polls/${status.poll.id}/votes`, {
      token: fan.token,
      json: { choices: [0] },
    });
    assert.equal(vote.status, 200, vote.text);
    await runEachTwice();
    await server.rt.db
      .updateTable("polls")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", status.poll.id)
      .execute();
    await dueNow("polls.expire");
  },
  async "statuses.publish_scheduled"() {
    const res = await server.post("/api/v1/statuses", {
      token: writer.token,
      json: { status: "Later", scheduled_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    assert.equal(res.status, 200, res.text);
    await server.rt.db
      .updateTable("scheduled_statuses")
      .set({ scheduled_at: new Date(Date.now() - 1000) })
      .where("id", "=", res.body.id)
      .execute();
    await dueNow("statuses.publish_scheduled");
  },
  async "feeds.trim"() {
    // The worker schedules the first trim when it starts; this one is off.
    await server.rt.queue.enqueue("feeds.trim", {});
  },
  async "media.process"() {
    // Random pixels do not compress: a PNG past the size processed at once, so a job processes it.
    const side = 1800;
    const noise = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(noise)], { type: "image/png" }), "noise.png");
    const res = await server.post("/api/v2/media", { token: writer.token, multipart: form });
    assert.equal(res.status, 202, res.text);
  },
  async "push.deliver"() {
    const device = new Subscriber();
    const res = await server.post("/api/v1/push/subscription", {
      token: fan.token,
      json: {
        subscription: { endpoint: `${pushService.url}/fan`, keys: device.keys, standard: true },
        data: { alerts: { mention: true } },
      },
    });
    assert.equal(res.status, 200, res.text);
    await postAs(writer, { status: `@${fan.username} pushed` });
  },
  async "notifications.stream"() {
    // Every notification is told to its recipient's streams by this job.
    await postAs(writer, { status: `@${booster.username} streamed` });
  },
  async "media.cleanup"() {
    // The worker schedules the first cleanup when it starts; this one is off.
    await server.rt.queue.enqueue("media.cleanup", {});
  },
  async "media.cache"() {
    // An account of the peer with an avatar, seen here for the first time, has it copied here.
    const painter = await peer.user("painter");
    const avatar = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#3a6" } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append("avatar", new Blob([new Uint8Array(avatar)], { type: "image/png" }), "avatar.png");
    const res = await peer.patch("/api/v1/accounts/update_credentials", { token: painter.token, multipart: form });
    assert.equal(res.status, 200, res.text);
    const found = await server.get("/api/v1/accounts/lookup", {
      token: writer.token,
      query: { acct: `${painter.username}@${new URL(peer.url).host}` },
    });
    assert.equal(found.status, 200, found.text);
  },
  async "media.expire_cache"() {
    // The worker schedules the first run when it starts (with a retention period set); this one is off.
    await server.rt.queue.enqueue("media.expire_cache", {});
  },
  async "accounts.purge"() {
    const doomed = await server.user("doomed");
    const admin = await server.user("purger", { role: "admin", scopes: ["admin:write"] });
    await postAs(doomed, { status: "Soon gone with its author" });
    await follow(server, fan, doomed);
    const res = await server.post(`/api/v1/admin/accounts/${doomed.accountId}/action`, {
      token: admin.token,
      json: { type: "suspend", send_email_notification: false },
    });
    assert.equal(res.status, 200, res.text);
    await server.rt.db
      .updateTable("accounts")
      .set({ suspended_at: new Date(Date.now() - 31 * 86_400_000) })
      .where("id", "=", doomed.accountId)
      .execute();
    await dueNow("accounts.purge");
  },
  async "announcements.publish"() {
    const later = await addAnnouncement(server.rt, { text: "Soon", publishAt: new Date(Date.now() + 3600_000) });
    await server.rt.db
      .updateTable("announcements")
      .set({ published_at: new Date() })
      .where("id", "=", later.id)
      .execute();
    await dueNow("announcements.publish");
  },
  async "feeds.rebuild"() {
    // What a worker does on finding the feeds lost in a crash.
    await server.rt.db.deleteFrom("feeds_intact").execute();
    await restoreFeeds(server.rt);
  },
  async "federation.fedify"() {
    // The peer's Follow arrives in the inbox, which leaves it to a job.
    const reader = await peer.user("reader");
    await warmActor(server, writer);
    const found = await peer.get("/api/v1/accounts/lookup", {
      token: reader.token,
      query: { acct: `${writer.username}@${new URL(server.url).host}` },
    });
    assert.equal(found.status, 200, found.text);
    const res = await peer.post(`/api/v1/accounts/${found.body.id}/follow`, { token: reader.token });
    assert.equal(res.status, 200, res.text);
    // The peer delivers it by a job of its own, tried again later if the first try fails.
    await waitFor(async () => (await jobsOf("federation.fedify")) > 0, "the Follow to reach the inbox");
  },
  async "federation.distribute"() {
    await postAs(writer, { status: "For the peer" });
  },
  async "federation.deliver"() {
    await postAs(writer, { status: "For the peer again" });
  },
  async "cards.fetch"() {
    // A page on this machine. Posts link only names with a known top-level domain, which resolve to
    // nothing here: the stored link is made the page's address before the job runs.
    const page = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" }).end("<title>A page</title>");
    });
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = page.address() as AddressInfo;
      const status = await postAs(writer, { status: `Linked http://example.com:${port}/page` });
      await server.rt.db
        .updateTable("statuses")
        .set({ content: `<p><a href="http://127.0.0.1:${port}/page">a page</a></p>` })
        .where("id", "=", status.id)
        .execute();
      await runEachTwice();
      const card = await server.rt.db.selectFrom("preview_cards").select("title").executeTakeFirstOrThrow();
      assert.equal(card.title, "A page");
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
  },
  async "federation.featured"() {
    // An account of the peer, seen here for the first time, has its pinned post read.
    const pinner = await peer.user("pinner");
    const pinned = await peer.post("/api/v1/statuses", { token: pinner.token, json: { status: "Pinned there" } });
    assert.equal((await peer.post(`/api/v1/statuses/${pinned.body.id}/pin`, { token: pinner.token })).status, 200);
    await warmActor(peer, pinner);
    const found = await server.get("/api/v1/accounts/lookup", {
      token: writer.token,
      query: { acct: `${pinner.username}@${new URL(peer.url).host}` },
    });
    assert.equal(found.status, 200, found.text);
  },
  async "federation.replies"() {
    // A thread of the peer's, opened here an hour after it was posted: its replies are looked for there.
    const poster = await peer.user("poster");
    const posted = await peer.post("/api/v1/statuses", { token: poster.token, json: { status: "Any replies?" } });
    assert.equal(posted.status, 200, posted.text);
    const found = await server.get("/api/v2/search", {
      token: writer.token,
      query: { q: posted.body.uri, resolve: "true", type: "statuses" },
    });
    assert.equal(found.body.statuses.length, 1, found.text);
    const id = found.body.statuses[0].id;
    await server.rt.db
      .updateTable("statuses")
      .set({ created_at: new Date(Date.now() - 3600_000) })
      .where("id", "=", id)
      .execute();
    const context = await server.get(`/api/v1/statuses/${id}/context`, { token: writer.token });
    assert.match(context.headers.get("mastodon-async-refresh") ?? "", /^id="[^"]+", retry=3, result_count=0$/);
  },
  async "imports.rows"() {
    // What the import page does with an uploaded file of follows (one row names nobody).
    importer = await server.user("importer");
    const host = server.rt.config.localDomain;
    const csv = `Account address,Show boosts\n${writer.username}@${host},false\n${booster.username}@${host},true\nnobody@${host},true\n`;
    const bytes = new TextEncoder().encode(csv);
    await createImport(server.rt, importer.accountId, {
      kind: "following",
      overwrite: false,
      fileName: "f.csv",
      bytes,
    });
  },
  async "archives.build"() {
    // What "Request your archive" on /settings/export does; writer has posts by now.
    await requestArchive(server.rt, writer.accountId);
  },
  async "accounts.move"() {
    // An account moves to another here: its follower (with it in a list and a note on it), a
    // blocker and a muter come along.
    const old = await server.user("oldname");
    const renamed = await server.user("newname");
    const blocker = await server.user("blocker");
    await follow(server, fan, old);
    const list = await server.post("/api/v1/lists", { token: fan.token, json: { title: "Movers" } });
    await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
      token: fan.token,
      json: { account_ids: [old.accountId] },
    });
    await server.post(`/api/v1/accounts/${old.accountId}/note`, {
      token: fan.token,
      json: { comment: "met at the pier" },
    });
    await server.post(`/api/v1/accounts/${old.accountId}/block`, { token: blocker.token });
    await server.post(`/api/v1/accounts/${old.accountId}/mute`, { token: booster.token });
    await runEachTwice();
    await addAlias(server.rt, renamed.accountId, old.username);
    await moveAccount(server.rt, old.accountId, renamed.username);
  },
  async "imports.prune"() {
    // An overwrite: the importer's follow of booster, not in the file, is undone.
    const bytes = new TextEncoder().encode(`${writer.username}@${server.rt.config.localDomain}\n`);
    await createImport(server.rt, importer.accountId, { kind: "following", overwrite: true, fileName: "f.csv", bytes });
  },
};

test("every job type has a case here", () => {
  const missing = jobTypes.filter((type) => !(type in cases));
  assert.deepEqual(missing, [], "add a case to test/jobs_twice.test.ts for each new job type");
});

test("every job type run twice leaves what running it once leaves", async () => {
  for (const [type, cause] of Object.entries(cases)) {
    await cause();
    await runEachTwice();
    assert.ok(ran.has(type), `the case for ${type} made no ${type} job`);
  }
  assert.deepEqual([...ran].sort(), [...jobTypes].sort());
  // The cases did what they set out to (one run of each, as the comparison shows no more).
  const updates = await server.rt.db
    .selectFrom("notifications")
    .select("account_id")
    .where("type", "=", "update")
    .execute();
  assert.deepEqual(
    updates.map((n) => n.account_id),
    [booster.accountId],
  );
});

// Taking one's social graph along: the CSV files of /settings/export, byte for byte as Mastodon
// writes them, and /settings/import reading Mastodon's files (with or without their header rows),
// merging or overwriting, resolving accounts of other servers, and listing the rows that failed.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type Browser, formFields, signInToAdmin } from "./browser.ts";
import { block, follow, mute, post } from "./fixtures.ts";
import { png } from "./media_files.ts";
import { type RemoteServer, startRemoteServer } from "./remote_actors.ts";
import { dialectUnderTest, startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let remote: RemoteServer;
/** This server's domain, as addresses in the files name it. */
let here: string;

before(async () => {
  remote = await startRemoteServer();
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  here = server.rt.config.localDomain;
});
after(async () => {
  await server.close();
  await remote.close();
});

let made = 0;
/** A user with a fresh name and a browser signed in as them. */
async function person(name: string): Promise<{ user: TestUser; browser: Browser }> {
  const user = await server.user(`${name}${++made}`);
  return { user, browser: await signInToAdmin(server, user.username) };
}

/** Uploads `csv` through the import page's form, as a browser would. */
async function upload(
  browser: Browser,
  type: string,
  csv: string | Uint8Array<ArrayBuffer>,
  mode = "merge",
  fileName = "export.csv",
) {
  const page = await browser.get("/settings/import");
  assert.equal(page.status, 200, page.text);
  const form = new FormData();
  for (const [name, value] of Object.entries(formFields(page.text, "/settings/import"))) form.append(name, value);
  form.set("type", type);
  form.set("mode", mode);
  form.append("data", new Blob([csv], { type: "text/csv" }), fileName);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  return server.request("POST", "/settings/import", { multipart: form, headers: { cookie } });
}

/** Uploads and waits for the import's jobs; returns the import's row. */
async function importFile(browser: Browser, accountId: string, type: string, csv: string, mode = "merge") {
  const res = await upload(browser, type, csv, mode);
  assert.equal(res.status, 303, res.text);
  assert.equal(res.headers.get("location"), "/settings/import?started=1");
  await server.settle();
  const imp = await server.rt.db
    .selectFrom("imports")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  assert.equal(imp.state, "finished");
  return imp;
}

async function relationship(user: TestUser, id: string) {
  const res = await server.get("/api/v1/accounts/relationships", { token: user.token, query: { "id[]": id } });
  assert.equal(res.status, 200, res.text);
  return res.body[0];
}

async function followingAccts(user: TestUser): Promise<string[]> {
  const res = await server.get(`/api/v1/accounts/${user.accountId}/following`, { token: user.token });
  return res.body.map((a: any) => a.acct).sort();
}

test("signed-out visitors are sent to sign in; nobody downloads another's files", async () => {
  const page = await server.get("/settings/export");
  assert.equal(page.status, 303);
  assert.equal(page.headers.get("location"), "/auth/sign_in?return_to=%2Fsettings%2Fexport&lang=en");
  const file = await server.get("/settings/export/following.csv");
  assert.equal(file.status, 303);
  const importPage = await server.get("/settings/import");
  assert.equal(importPage.status, 303);
});

test("the export files are Mastodon's, byte for byte", async () => {
  const { user: alice, browser } = await person("alice");
  const bob = await server.user(`bob${++made}`);
  const carol = await server.user(`carol${++made}`);
  const dave = await server.user(`dave${++made}`);
  const erin = await server.user(`erin${++made}`);
  await follow(server, alice, bob);
  await follow(server, alice, carol, { notify: true, reblogs: false, languages: ["en", "de"] });
  await block(server, alice, dave);
  await mute(server, alice, erin, { notifications: false });
  assert.equal(
    (await server.post("/api/v1/domain_blocks", { token: alice.token, form: { domain: "spam.example" } })).status,
    200,
  );
  const status = await post(server, bob, "Worth keeping");
  assert.equal((await server.post(`/api/v1/statuses/${status.id}/bookmark`, { token: alice.token })).status, 200);
  const list = await server.post("/api/v1/lists", { token: alice.token, json: { title: "Friends, close" } });
  const added = await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
    token: alice.token,
    json: { account_ids: [bob.accountId] },
  });
  assert.equal(added.status, 200, added.text);

  const page = await browser.get("/settings/export");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("cache-control"), "no-store");
  assert.match(page.text, /<td>Follows<\/td><td>2<\/td>/);
  assert.match(page.text, /<td>Blocked accounts<\/td><td>1<\/td>/);
  assert.match(page.text, /href="\/settings\/export\/following.csv"/);

  const files: Record<string, [string, string]> = {
    following: [
      "following_accounts.csv",
      "Account address,Show boosts,Notify on new posts,Languages\n" +
        `${carol.username}@${here},false,true,"en, de"\n` +
        `${bob.username}@${here},true,false,\n`,
    ],
    blocks: ["blocked_accounts.csv", `${dave.username}@${here}\n`],
    mutes: ["muted_accounts.csv", `Account address,Hide notifications\n${erin.username}@${here},false\n`],
    domain_blocks: ["blocked_domains.csv", "spam.example\n"],
    bookmarks: ["bookmarks.csv", `${status.uri}\n`],
    lists: ["lists.csv", `"Friends, close",${bob.username}@${here}\n`],
  };
  for (const [kind, [name, body]] of Object.entries(files)) {
    const res = await browser.get(`/settings/export/${kind}.csv`);
    assert.equal(res.status, 200, kind);
    assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.equal(res.headers.get("content-disposition"), `attachment; filename="${name}"`);
    assert.equal(res.text, body, kind);
  }
  assert.equal((await browser.get("/settings/export/passwords.csv")).status, 404);
});

test("following: Mastodon's file with its header; locked and remote accounts become requests; failures listed", async () => {
  const { user: alice, browser } = await person("alice");
  const bob = await server.user(`bob${++made}`);
  const locked = await server.user(`locked${++made}`);
  await server.rt.db.updateTable("accounts").set({ locked: true }).where("id", "=", locked.accountId).execute();
  remote.actor("rita");
  const csv =
    "Account address,Show boosts,Notify on new posts,Languages\n" +
    `${bob.username}@${here},false,true,"en, fr"\n` +
    `@${locked.username}@${here},true,false,\n` +
    `rita@${remote.host},true,false,\n` +
    `nobody@${here},true,false,\n` +
    `${alice.username}@${here},true,false,\n`;
  const imp = await importFile(browser, alice.accountId, "following", csv);
  assert.deepEqual([imp.total_rows, imp.processed_rows, imp.failed_rows], [5, 5, 2]);

  const withBob = await relationship(alice, bob.accountId);
  assert.deepEqual(
    [withBob.following, withBob.showing_reblogs, withBob.notifying, withBob.languages],
    [true, false, true, ["en", "fr"]],
  );
  const withLocked = await relationship(alice, locked.accountId);
  assert.deepEqual([withLocked.following, withLocked.requested], [false, true]);
  const rita = await server.get("/api/v1/accounts/lookup", {
    token: alice.token,
    query: { acct: `rita@${remote.host}` },
  });
  assert.equal(rita.status, 200, rita.text);
  const withRita = await relationship(alice, rita.body.id);
  assert.deepEqual([withRita.following, withRita.requested], [false, true]);

  const list = await browser.get("/settings/import");
  assert.match(list.text, /<td>Finished<\/td>/);
  assert.match(list.text, /5 \/ 5/);
  const failures = await browser.get(`/settings/import/${imp.id}`);
  assert.equal(failures.status, 200);
  assert.match(
    failures.text,
    new RegExp(`<td>4</td><td>nobody@${here.replace(/\./g, "\\.")}</td><td lang="en">No account nobody@`),
  );
  assert.match(
    failures.text,
    /<td>5<\/td><td>[^<]+<\/td><td lang="en">Following your own account is not allowed<\/td>/,
  );

  // Another person cannot read these rows.
  const { browser: other } = await person("mallory");
  assert.equal((await other.get(`/settings/import/${imp.id}`)).status, 404);
});

test("overwrite replaces what one follows; merge keeps it", async () => {
  const { user: alice, browser } = await person("alice");
  const [x, y, z] = [await server.user(`x${++made}`), await server.user(`y${++made}`), await server.user(`z${++made}`)];
  await follow(server, alice, x);
  await follow(server, alice, y);
  // A file without a header row, as older Mastodon versions wrote it.
  await importFile(browser, alice.accountId, "following", `${z.username}@${here}\n`);
  assert.deepEqual(await followingAccts(alice), [x.username, y.username, z.username].sort());
  await importFile(
    browser,
    alice.accountId,
    "following",
    `${y.username}@${here}\n${z.username}@${here}\n`,
    "overwrite",
  );
  assert.deepEqual(await followingAccts(alice), [y.username, z.username].sort());
});

test("blocks, mutes, domain blocks, bookmarks and lists from Mastodon's files", async () => {
  const { user: alice, browser } = await person("alice");
  const [bob, carol, dave] = [
    await server.user(`bob${++made}`),
    await server.user(`carol${++made}`),
    await server.user(`dave${++made}`),
  ];
  const status = await post(server, dave, "Bookmark me");

  await importFile(browser, alice.accountId, "blocks", `${bob.username}@${here}\n`);
  assert.equal((await relationship(alice, bob.accountId)).blocking, true);

  await importFile(
    browser,
    alice.accountId,
    "mutes",
    `Account address,Hide notifications\n${carol.username}@${here},false\n`,
  );
  const muted = await relationship(alice, carol.accountId);
  assert.deepEqual([muted.muting, muted.muting_notifications], [true, false]);

  await importFile(browser, alice.accountId, "domain_blocks", "Spam.Example\nevil.example\n");
  const domains = await server.get("/api/v1/domain_blocks", { token: alice.token });
  assert.deepEqual(domains.body.sort(), ["evil.example", "spam.example"]);
  await importFile(browser, alice.accountId, "domain_blocks", "#domain\nevil.example\n", "overwrite");
  assert.deepEqual((await server.get("/api/v1/domain_blocks", { token: alice.token })).body, ["evil.example"]);

  await importFile(browser, alice.accountId, "bookmarks", `#uri\n${status.uri}\nhttps://gone.invalid/statuses/1\n`);
  const bookmarks = await server.get("/api/v1/bookmarks", { token: alice.token });
  assert.deepEqual(
    bookmarks.body.map((s: any) => s.id),
    [status.id],
  );

  const imp = await importFile(
    browser,
    alice.accountId,
    "lists",
    `Readers,${dave.username}@${here}\nReaders,${carol.username}@${here}\n`,
  );
  assert.equal(imp.failed_rows, 0);
  const lists = await server.get("/api/v1/lists", { token: alice.token });
  assert.deepEqual(
    lists.body.map((l: any) => l.title),
    ["Readers"],
  );
  const members = await server.get(`/api/v1/lists/${lists.body[0].id}/accounts`, { token: alice.token });
  assert.deepEqual(members.body.map((a: any) => a.acct).sort(), [carol.username, dave.username].sort());
});

test("hostile files get a clear refusal, never a 500, and nothing is stored", async () => {
  const { user: alice, browser } = await person("alice");
  const cases: [string, string | Uint8Array<ArrayBuffer>, RegExp][] = [
    ["following", "bob@x\u0000.example\n", /NUL bytes/],
    ["following", 'Account address\n"unterminated,true\n', /Invalid CSV file/],
    ["following", new Uint8Array([0xff, 0xfe, 0x41, 0x0a]), /not UTF-8/],
    ["following", "", /Data can&#39;t be blank|Empty CSV file/],
    ["following", `"${"a".repeat(20_000)}"\n`, /Invalid CSV file/],
    ["domain_blocks", "Account address\nbob@here\n", /Incompatible with the selected import type/],
    ["following", "x@y\n".repeat(20_001), /more than 20000 rows/],
    ["lists", "", /Data can&#39;t be blank/],
  ];
  for (const [type, csv, message] of cases) {
    const res = await upload(browser, type, csv);
    assert.equal(res.status, 422, `${type} ${String(csv).slice(0, 40)}: ${res.text.slice(0, 300)}`);
    assert.match(res.text, message);
  }
  const big = await upload(browser, "following", "x@y.example\n".repeat(400_000));
  assert.equal(big.status, 413);
  assert.equal(
    (await server.rt.db.selectFrom("imports").select("id").where("account_id", "=", alice.accountId).execute()).length,
    0,
  );
});

test("a form without the session's CSRF token is refused", async () => {
  const { user: alice, browser } = await person("alice");
  const form = new FormData();
  form.set("type", "following");
  form.append("data", new Blob(["bob@example.test\n"]), "follows.csv");
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await server.request("POST", "/settings/import", { multipart: form, headers: { cookie } });
  assert.equal(res.status, 422);
  assert.match(res.text, /This form has expired/);
  form.set("authenticity_token", "forged");
  assert.equal(
    (await server.request("POST", "/settings/import", { multipart: form, headers: { cookie } })).status,
    422,
  );
  const stored = await server.rt.db
    .selectFrom("imports")
    .select("id")
    .where("account_id", "=", alice.accountId)
    .execute();
  assert.equal(stored.length, 0);
});

// The command runs as an operator runs it, on the test server's SQLite file (the PostgreSQL pass
// has no way to name the test server's schema to another process).
test("rookery accounts import and export, on the same services", { skip: dialectUnderTest !== "sqlite" }, async () => {
  const alice = await server.user(`alice${++made}`);
  const [bob, carol] = [await server.user(`bob${++made}`), await server.user(`carol${++made}`)];
  await follow(server, alice, carol);
  const env = {
    ...process.env,
    DATA_DIR: server.rt.config.dataDir,
    DATABASE_URL: server.rt.config.databaseUrl,
    LOCAL_DOMAIN: here,
    LOG_LEVEL: "warn",
  };
  const rookery = (...args: string[]) => promisify(execFile)(process.execPath, ["src/main.ts", ...args], { env });
  const file = join(server.rt.config.dataDir, "follows.csv");
  writeFileSync(
    file,
    `Account address,Show boosts,Notify on new posts,Languages\n${bob.username}@${here},true,true,\nghost@${here},true,false,\n`,
  );
  const imported = await rookery("accounts", "import", alice.username, "--type", "following", file, "--overwrite");
  assert.match(imported.stdout, /Imported 1 of 2 rows; 1 failed\./);
  assert.match(imported.stderr, new RegExp(`row 2\tghost@${here.replace(/\./g, "\\.")}\tNo account ghost@`));
  assert.deepEqual(await followingAccts(alice), [bob.username]);
  const exported = await rookery("accounts", "export", alice.username, "--type", "following");
  assert.equal(
    exported.stdout,
    `Account address,Show boosts,Notify on new posts,Languages\n${bob.username}@${here},true,true,\n`,
  );
  await assert.rejects(rookery("accounts", "export", alice.username, "--type", "passwords"), (e: { stderr: string }) =>
    /--type is one of: following, lists, blocks, mutes, domain_blocks, bookmarks/.test(e.stderr),
  );
});

/** The files of a zip and the JSON ones parsed, read with Python's zipfile. */
async function unzip(bytes: Uint8Array): Promise<{ names: string[]; json: Record<string, any> }> {
  const file = join(mkdtempSync(join(tmpdir(), "rookery-archive-")), "archive.zip");
  writeFileSync(file, bytes);
  const script =
    "import json, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n" +
    "print(json.dumps({'names': z.namelist(), 'json': {n: json.loads(z.read(n)) for n in z.namelist() if n.endswith('.json')}}))";
  return JSON.parse((await promisify(execFile)("python3", ["-c", script, file])).stdout);
}

test("the archive: a zip of the outbox, actor, likes and bookmarks, once a week, for its owner only", async () => {
  const { user: alice, browser } = await person("alice");
  const bob = await server.user(`bob${++made}`);
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(await png())], { type: "image/png" }), "photo.png");
  const media = await server.post("/api/v2/media", { token: alice.token, multipart: form });
  assert.equal(media.status, 200, media.text);
  const avatar = new FormData();
  avatar.append("avatar", new Blob([new Uint8Array(await png(120, 120))], { type: "image/png" }), "me.png");
  assert.equal(
    (await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, multipart: avatar })).status,
    200,
  );
  const first = await post(server, alice, { status: "My first post", media_ids: [media.body.id] });
  await post(server, alice, { status: "Unlisted too", visibility: "unlisted" });
  await post(server, alice, { status: "Followers only", visibility: "private" });
  const liked = await post(server, bob, "Worth a star");
  assert.equal((await server.post(`/api/v1/statuses/${liked.id}/favourite`, { token: alice.token })).status, 200);
  assert.equal((await server.post(`/api/v1/statuses/${liked.id}/bookmark`, { token: alice.token })).status, 200);

  const asked = await browser.post(
    "/settings/export/archive",
    formFields((await browser.get("/settings/export")).text, "/settings/export/archive"),
  );
  assert.equal(asked.status, 303);
  await server.settle();
  const page = await browser.get("/settings/export");
  const link = /href="(\/settings\/export\/archive\/\d+)"/.exec(page.text)?.[1];
  assert.ok(link, page.text);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const download = await fetch(`${server.url}${link}`, { headers: { cookie } });
  assert.equal(download.status, 200);
  assert.equal(download.headers.get("content-type"), "application/zip");
  assert.match(download.headers.get("content-disposition")!, /^attachment; filename="archive-\d{14}\.zip"$/);
  const zip = await unzip(new Uint8Array(await download.arrayBuffer()));
  const files = zip.names.filter((n) => n.startsWith("media_attachments/files/"));
  const avatarFile = zip.names.find((n) => n.startsWith("avatar."));
  assert.equal(files.length, 1);
  assert.ok(avatarFile);
  assert.deepEqual(zip.names.filter((n) => !files.includes(n) && n !== avatarFile).sort(), [
    "actor.json",
    "bookmarks.json",
    "likes.json",
    "outbox.json",
  ]);
  assert.equal(zip.json["actor.json"].icon.url, avatarFile);
  const outbox = zip.json["outbox.json"];
  assert.deepEqual([outbox.id, outbox.type, outbox.totalItems], ["outbox.json", "OrderedCollection", 2]);
  assert.deepEqual(
    outbox.orderedItems.map((a: any) => [a.type, a.object.type, a.object.id]),
    [
      ["Create", "Note", first.uri],
      ["Create", "Note", outbox.orderedItems[1].object.id],
    ],
  );
  assert.match(outbox.orderedItems[0].object.content, /My first post/);
  const attachment = [outbox.orderedItems[0].object.attachment].flat()[0];
  assert.deepEqual([attachment.type, attachment.url], ["Document", files[0]]);
  assert.equal(outbox.orderedItems[0].actor, zip.json["actor.json"].id);
  assert.deepEqual([zip.json["actor.json"].type, zip.json["actor.json"].preferredUsername], ["Person", alice.username]);
  assert.deepEqual(zip.json["likes.json"], {
    "@context": "https://www.w3.org/ns/activitystreams",
    type: "OrderedCollection",
    id: "likes.json",
    orderedItems: [liked.uri],
  });
  assert.deepEqual(zip.json["bookmarks.json"].orderedItems, [liked.uri]);

  const again = await browser.post("/settings/export/archive", formFields(page.text, "/settings/export/archive"));
  assert.equal(again.status, 422);
  assert.match(again.text, /once every 7 days/);
  const { browser: other } = await person("mallory");
  assert.equal((await other.get(link)).status, 404);
  assert.equal((await server.get(link)).status, 303);
  const key = (
    await server.rt.db
      .selectFrom("archives")
      .select("file_key")
      .where("account_id", "=", alice.accountId)
      .executeTakeFirstOrThrow()
  ).file_key;
  assert.equal((await server.get(`/system/${key}`)).status, 404);
});

test("an archive whose job gave up says so, and a new one may be asked for at once", async () => {
  const { user, browser } = await person("unlucky");
  // A stored file that is gone: every run of the job fails on it.
  await server.rt.db
    .updateTable("accounts")
    .set({ avatar_file: "gone/missing.png" })
    .where("id", "=", user.accountId)
    .execute();
  const ask = async () =>
    browser.post(
      "/settings/export/archive",
      formFields((await browser.get("/settings/export")).text, "/settings/export/archive"),
    );
  assert.equal((await ask()).status, 303);
  const archive = () =>
    server.rt.db
      .selectFrom("archives")
      .selectAll()
      .where("account_id", "=", user.accountId)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
  // Each retry is made due at once rather than after its backoff.
  for (let run = 0; (await archive()).failed_at === null; run++) {
    assert.ok(run < 20, "the job gives up");
    await server.rt.db
      .updateTable("jobs")
      .set({ run_at: new Date(0) })
      .where("type", "=", "archives.build")
      .where("failed_at", "is", null)
      .execute();
    server.rt.queue.wake();
    await server.settle();
  }
  const failed = await archive();
  assert.equal(failed.file_key, null);
  const page = await browser.get("/settings/export");
  assert.match(
    page.text,
    /<p class="error" role="alert">The archive asked for on .+ could not be made\. You can ask for a new one\.<\/p>/,
  );
  assert.doesNotMatch(page.text, /http-equiv="refresh"/, "a failed archive is not waited for");

  assert.equal((await ask()).status, 303, "a failed archive does not count against the week");
  const again = await archive();
  assert.notEqual(again.id, failed.id);
  assert.equal(again.failed_at, null);
});

// The web admin's dashboard, servers, announcements and invites pages through HTTP: who may open
// them, and that each shows what the services know (a real remote server's contact and failures,
// the job queue, the announcements the API serves, invites refused once deactivated).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Browser, formFields, PASSWORD, signInToAdmin, submit } from "./browser.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let remote: RemoteServer;
let mallory: RemoteActor;
let alice: TestUser;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  remote = await startRemoteServer();
  mallory = remote.actor("mallory");
  await server.user("plain");
  await server.user("mod", { role: "moderator" });
  await server.user("boss", { role: "admin" });
  alice = await server.user("alice");
  const reporter = await server.user("reporter");
  const report = await server.post("/api/v1/reports", {
    token: reporter.token,
    json: { account_id: alice.accountId, comment: "Look" },
  });
  assert.equal(report.status, 200, report.text);
  const waiting = await server.user("waiting");
  await server.rt.db.updateTable("users").set({ approved: false }).where("id", "=", waiting.userId).execute();
});
after(async () => {
  await server.close();
  await remote.close();
});

const signedIn = (username: string) => signInToAdmin(server, username);

/** Polls `read` until `ok` holds of what it gives, for up to a minute. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The text of a table row whose header cell reads `label`. */
function row(html: string, label: string): string {
  const match = html.match(new RegExp(`<tr><th scope="row">${label}</th><td>(.*?)</td></tr>`));
  return match?.[1]?.replace(/<[^>]+>/g, "") ?? "";
}

test("each new section needs its permission; /admin opens the dashboard for roles that may view it", async () => {
  const mod = await signedIn("mod");
  assert.equal((await mod.get("/admin")).headers.get("location"), "/admin/dashboard");
  const dashboard = await mod.get("/admin/dashboard");
  assert.equal(dashboard.status, 200);
  assert.doesNotMatch(
    dashboard.text,
    /href="\/admin\/instances"|href="\/admin\/announcements"|href="\/admin\/invites"/,
  );
  for (const path of [
    "/admin/instances",
    "/admin/instances/remote.example",
    "/admin/announcements",
    "/admin/invites",
  ]) {
    const res = await mod.get(path);
    assert.equal(res.status, 403, path);
    assert.match(res.text, /Your role does not allow you to see this page/);
  }
  const token = formFields(dashboard.text, "/auth/sign_out");
  for (const path of ["/admin/announcements", "/admin/invites/1/expire", "/admin/announcements/1/remove"]) {
    assert.equal((await mod.post(path, { ...token, text: "Hello" })).status, 403, path);
  }
  assert.equal((await server.get("/api/v1/announcements", { token: alice.token })).body.length, 0);

  const plain = await signedIn("plain");
  assert.equal((await plain.get("/admin/dashboard")).status, 403);
  const boss = await signedIn("boss");
  assert.equal((await boss.get("/admin")).headers.get("location"), "/admin/dashboard");
  for (const path of ["/admin/instances", "/admin/announcements", "/admin/invites"]) {
    assert.equal((await boss.get(path)).status, 200, path);
  }
});

test("the dashboard: 30 days of measures, what waits for staff, storage, the job queue", async () => {
  await server.rt.queue.enqueue("admin.no_such_job" as never, {} as never, { maxAttempts: 1 });
  const mod = await signedIn("mod");
  const page = await until(
    () => mod.get("/admin/dashboard"),
    (res) => res.text.includes("<code>admin.no_such_job</code>"),
  );
  assert.match(page.text, /Last 30 days \(\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}\)/);
  assert.deepEqual(
    ["New sign-ups", "Reports opened", "Reports resolved"].map((m) => {
      const cells = page.text.match(new RegExp(`<th scope="row">${m}</th><td>([^<]*)</td><td>([^<]*)</td>`));
      return cells && [cells[1], cells[2]];
    }),
    [
      ["6", "0"],
      ["1", "0"],
      ["0", "0"],
    ],
  );
  assert.match(
    page.text,
    /<th scope="row">Active users<\/th><td>[1-9]<\/td><td>0<\/td>/,
    "people signing in are active",
  );
  assert.equal(row(page.text, "Open reports"), "1");
  assert.ok(page.text.includes('<a href="/admin/reports">1</a>'));
  assert.equal(row(page.text, "Sign-ups waiting for approval"), "1");
  assert.match(row(page.text, "Database \\((?:SQLite|PostgreSQL)\\)"), /^\d+(\.\d)? (KB|MB|GB)$/);
  assert.equal(row(page.text, "Media files"), "0 Bytes");
  const job = page.text.match(/<tr><td><code>admin\.no_such_job<\/code><\/td>((?:<td>[^<]*<\/td>){5})<\/tr>/);
  assert.deepEqual(
    [...job![1].matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]),
    ["0", "0", "—", "0", "1"],
  );
  assert.match(page.text, /Deliveries to every server go through\./);
  // Dimensions and retention, as the admin API computes them.
  assert.match(
    page.text,
    /<h3>Sign-up sources<\/h3>\n<table class="dimension"><tbody><tr><th scope="row">Web<\/th><td>6<\/td><\/tr><\/tbody>/,
  );
  assert.match(page.text, /<h3>Most active servers<\/h3>\n<p class="muted">Nothing in these days\.<\/p>/);
  assert.match(page.text, /<th scope="row">Rookery<\/th><td>\d+\.\d+/);
  const month = new Date().toISOString().slice(0, 7);
  assert.match(page.text, new RegExp(`<tr><th scope="row">${month}</th><td>6</td>(<td></td>){5}</tr>`));
  assert.equal([...page.text.matchAll(/<th>Month \+\d<\/th>/g)].length, 5);
});

/** POSTs `activity` to `inbox`, signed by mallory. */
async function send(inbox: string, activity: unknown): Promise<number> {
  const body = JSON.stringify(activity);
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(mallory, inbox, body, "draft-cavage"),
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

test("servers: a remote server is listed once its account is known, with contact, then failures", async () => {
  const boss = await signedIn("boss");
  assert.match((await boss.get("/admin/instances")).text, /No server is known yet\./);
  const follow = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${mallory.id}#follows/1`,
    type: "Follow",
    actor: mallory.id,
    object: `${server.url}/users/alice`,
  };
  assert.equal(await send(`${server.url}/users/alice/inbox`, follow), 202);
  await server.settle();
  const host = remote.host;
  const path = `/admin/instances/${encodeURIComponent(host)}`;
  // The Follow came in and the Accept went out.
  const page = await until(
    () => boss.get(path),
    (res) => res.status === 200 && !row(res.text, "Last delivery").startsWith("Never"),
  );
  assert.equal(page.status, 200, page.text);
  assert.equal(row(page.text, "Known accounts"), "1");
  assert.equal(row(page.text, "Its accounts following ours"), "1");
  assert.equal(row(page.text, "Failed deliveries"), "0");
  assert.match(row(page.text, "Last delivery"), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  assert.match(row(page.text, "Last activity received"), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  assert.equal(row(page.text, "Availability"), "Available");
  assert.equal(row(page.text, "Moderation"), "None");

  const list = await boss.get("/admin/instances");
  assert.ok(list.text.includes(`<a href="${path}">${host}</a>`));
  assert.ok((await boss.get(`/admin/instances?name=127.0`)).text.includes(`>${host}</a>`));
  assert.match((await boss.get("/admin/instances?name=nowhere")).text, /No server is known yet\./);
  assert.equal((await boss.get("/admin/instances/nowhere.example")).status, 404);

  const blockLink = `/admin/domain_blocks?${new URLSearchParams({ domain: host })}`;
  assert.ok(page.text.includes(`href="${blockLink.replace(/&/g, "&amp;")}"`));
  const form = await boss.get(blockLink);
  assert.ok(form.text.includes(`name="domain" type="text" required placeholder="example.com" value="${host}"`));

  // The server stops answering: alice's next post fails to reach it, and keeps failing.
  remote.inboxStatus = 503;
  const posted = await server.post("/api/v1/statuses", { token: alice.token, json: { status: "Anyone there?" } });
  assert.equal(posted.status, 200);
  const failing = await until(
    () => boss.get(path),
    (res) => /^Failing \(\d+ in a row\)$/.test(row(res.text, "Availability")),
  );
  assert.match(row(failing.text, "Availability"), /^Failing \(\d+ in a row\)$/);
  const dashboard = await boss.get("/admin/dashboard");
  assert.ok(dashboard.text.includes(`<a href="${path}">${host}</a>`), "the dashboard lists the failing server");
  remote.inboxStatus = 202;
});

test("announcements: written, edited, unpublished, published again, scheduled and deleted", async () => {
  const boss = await signedIn("boss");
  const shown = async () =>
    (await server.get("/api/v1/announcements", { token: alice.token })).body.map((a: any) => [
      a.content,
      a.all_day,
      a.starts_at,
    ]);
  const created = await submit(boss, "/admin/announcements/new", "/admin/announcements", {
    text: "Maintenance tonight",
    starts_at: "2030-01-02T20:00",
    all_day: "1",
  });
  assert.equal(created.status, 303);
  assert.equal(created.headers.get("location"), "/admin/announcements?saved=1");
  assert.deepEqual(await shown(), [["<p>Maintenance tonight</p>", true, "2030-01-02T20:00:00.000Z"]]);
  const row = await server.rt.db.selectFrom("announcements").select("id").executeTakeFirstOrThrow();
  const path = `/admin/announcements/${row.id}`;

  const edit = await boss.get(`${path}/edit`);
  assert.ok(edit.text.includes('value="2030-01-02T20:00"'));
  assert.equal(
    (
      await boss.post(path, {
        ...formFields(edit.text, path),
        text: "Maintenance tomorrow",
        starts_at: "",
        all_day: "",
      })
    ).status,
    303,
  );
  assert.deepEqual(await shown(), [["<p>Maintenance tomorrow</p>", false, null]]);

  assert.equal((await submit(boss, "/admin/announcements", `${path}/unpublish`)).status, 303);
  assert.deepEqual(await shown(), []);
  assert.match((await boss.get("/admin/announcements")).text, /Unpublished/);
  assert.equal((await submit(boss, "/admin/announcements", `${path}/publish`)).status, 303);
  assert.equal((await shown()).length, 1);

  const scheduled = await submit(boss, "/admin/announcements/new", "/admin/announcements", {
    text: "Later",
    publish_at: "2099-01-01T00:00",
  });
  assert.equal(scheduled.status, 303);
  assert.equal((await shown()).length, 1);
  assert.match((await boss.get("/admin/announcements")).text, /Scheduled for 2099-01-01 00:00 UTC/);

  const bad = await submit(boss, "/admin/announcements/new", "/admin/announcements", {
    text: "Bad",
    ends_at: "tomorrow",
  });
  assert.equal(bad.status, 422);
  assert.match(bad.text, /Ends at is not a date and time/);
  const blank = await submit(boss, "/admin/announcements/new", "/admin/announcements", { text: " " });
  assert.equal(blank.status, 422);

  assert.equal((await submit(boss, "/admin/announcements", `${path}/remove`)).status, 303);
  assert.deepEqual(await shown(), []);
  assert.equal((await boss.get(`${path}/edit`)).status, 404);
  const log = await boss.get("/admin/audit_log");
  for (const action of ["create", "update", "unpublish", "publish", "destroy"]) {
    assert.ok(
      log.text.includes(`<code>${action}</code></td><td>Announcement Maintenance tomorrow`) ||
        log.text.includes(`<code>${action}</code></td><td>Announcement Maintenance tonight`),
      action,
    );
  }
});

test("invites: everyone's are listed with their maker; a deactivated one is refused at sign-up", async () => {
  const member = new Browser(server);
  const signIn = await member.get("/auth/sign_in");
  await member.post("/auth/sign_in", {
    ...formFields(signIn.text, "/auth/sign_in"),
    email: "alice@example.test",
    password: PASSWORD,
  });
  assert.equal((await submit(member, "/invites", "/invites", { max_uses: "5", expires_in: "" })).status, 303);
  const invite = await server.rt.db.selectFrom("invites").select(["id", "code"]).executeTakeFirstOrThrow();

  const boss = await signedIn("boss");
  const list = await boss.get("/admin/invites");
  assert.ok(list.text.includes(`<code>${server.url}/invite/${invite.code}</code>`));
  assert.match(list.text, /@alice/);
  assert.match(list.text, /<td>0 \/ 5<\/td>/);
  const signUp = (code: string) => new Browser(server).get(`/auth/sign_up?invite_code=${code}`);
  assert.doesNotMatch((await signUp(invite.code)).text, /This invite link is invalid or has expired\./);

  assert.equal((await submit(boss, "/admin/invites", `/admin/invites/${invite.id}/expire`)).status, 303);
  assert.match((await boss.get("/admin/invites")).text, /No invite here\./);
  assert.match((await signUp(invite.code)).text, /This invite link is invalid or has expired\./);
  assert.ok((await boss.get("/admin/invites?expired=1")).text.includes(`<del>${invite.code}</del>`));
  const again = await boss.post(`/admin/invites/${invite.id}/expire`, formFields(list.text, "/auth/sign_out"));
  assert.equal(again.status, 303, "deactivating twice changes nothing more");
  assert.equal((await boss.post("/admin/invites/1/expire", formFields(list.text, "/auth/sign_out"))).status, 404);
  const memberList = await member.get("/invites");
  assert.ok(memberList.text.includes(`<del>${invite.code}</del>`), "the member sees it ended too");
  assert.match(
    (await boss.get("/admin/audit_log")).text,
    new RegExp(`<code>expire</code></td><td>Invite ${invite.code}`),
  );
});

test("the new pages speak the visitor's language", async () => {
  const boss = await signedIn("boss");
  for (const [lang, words] of [
    ["de", ["Übersicht", "Auftragswarteschlange", "Server", "Ankündigungen", "Einladungen"]],
    ["fr", ["Tableau de bord", "File des tâches", "Serveurs", "Annonces", "Invitations"]],
    ["es", ["Panel", "Cola de tareas", "Servidores", "Anuncios", "Invitaciones"]],
  ] as const) {
    const res = await boss.get(`/admin/dashboard?lang=${lang}`);
    assert.equal(res.status, 200);
    for (const word of words) assert.ok(res.text.includes(word), `${lang}: ${word}`);
    for (const path of ["/admin/instances", "/admin/announcements", "/admin/announcements/new", "/admin/invites"]) {
      assert.match((await boss.get(`${path}?lang=${lang}`)).text, new RegExp(`<html lang="${lang}"`), path);
    }
  }
});

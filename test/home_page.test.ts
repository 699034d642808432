// The home page (`/`) a browser opens first, the about page and the icons every page asks for:
// what the server is, where to go from there, and what a person signed in on the web does next.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { addRule } from "../src/services/instance/rules.ts";
import { Browser, formFields, PASSWORD, signInToAdmin } from "./browser.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

before(async () => {
  server = await startServer({
    env: {
      SITE_TITLE: "Heron Club",
      SITE_DESCRIPTION: "Birders of the <river>",
      SITE_CONTACT_EMAIL: "admin@heron.test",
      SITE_CONTACT_USERNAME: "boss",
    },
  });
  alice = await server.user("alice");
  await server.user("boss", { role: "admin" });
  await addRule(server.rt, "Be kind to birds", "and to birders");
});
after(() => server.close());

/** A browser's visit to `/`, signed in through the sign-in page as `email` when given. */
async function visit(headers: Record<string, string> = {}, email?: string) {
  const browser = new Browser(server, { ...HTML, ...headers });
  if (email) {
    const signIn = await browser.get("/auth/sign_in");
    const res = await browser.post("/auth/sign_in", {
      ...formFields(signIn.text, "/auth/sign_in"),
      email,
      password: PASSWORD,
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/", "signing in leads home");
  }
  return browser.get("/");
}

test("a browser gets the home page: the server, its rules and contact, and where to go", async () => {
  const res = await visit();
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  const body = res.text;
  assert.ok(body.includes("<title>Welcome · Heron Club</title>"));
  assert.ok(body.includes("<h1>Heron Club</h1>"));
  assert.ok(body.includes('<p class="description">Birders of the &lt;river&gt;</p>'));
  assert.ok(body.includes('<li>Be kind to birds<br><span class="muted">and to birders</span></li>'));
  assert.ok(body.includes('<a href="mailto:admin@heron.test">admin@heron.test</a>'));
  assert.ok(body.includes('<a href="/@boss">@boss</a>'));
  for (const link of [
    '<a href="/auth/sign_in">Sign in</a>',
    '<a href="/auth/sign_up">Sign up</a>',
    '<a href="/about">About this server</a>',
    '<a href="/public/local">Latest posts</a>',
  ]) {
    assert.ok(body.includes(link), link);
  }
  assert.ok(!body.includes("signed in as"));
  assert.equal(res.headers.get("vary"), "Accept, Cookie");

  const german = await visit({ "accept-language": "de-DE,de;q=0.9" });
  assert.ok(german.text.includes('<html lang="de">'));
  assert.ok(german.text.includes('<a href="/auth/sign_in">Anmelden</a>'));
  assert.ok(german.text.includes("<h2>Regeln</h2>"));
  assert.ok((await server.get("/?lang=es", { headers: HTML })).text.includes("Iniciar sesión"));
  assert.ok((await server.get("/?lang=fr", { headers: HTML })).text.includes("Se connecter"));
});

test("API clients asking for JSON, or anything, get the JSON 404 as before", async () => {
  for (const accept of ["application/json", "*/*", ""]) {
    const res = await server.get("/", { headers: accept ? { accept } : {} });
    assert.deepEqual([res.status, res.body], [404, { error: "Record not found" }], accept);
  }
});

test("signed in on the web, a member learns what to do next; staff get the web admin", async () => {
  const member = await visit({}, "alice@example.test");
  const body = member.text;
  assert.ok(body.includes("You are signed in as <strong>@alice</strong>."));
  assert.ok(
    body.includes(`give it the address <code>127.0.0.1:${new URL(server.url).port}</code>`.replace("give", "Give")),
  );
  assert.ok(body.includes("Tested with Rookery: toot"));
  assert.ok(body.includes("“indexable”, off for new accounts"));
  assert.ok(body.includes('<a href="/@alice">Your public profile</a>'));
  assert.ok(!body.includes('href="/admin"'), "no web admin for members");
  assert.ok(body.includes('action="/auth/sign_out"'));
  assert.ok(!body.includes('href="/auth/sign_in"'));
  assert.equal(member.headers.get("cache-control"), "private, no-store");

  const staff = await visit({}, "boss@example.test");
  assert.ok(staff.text.includes('<a href="/admin">Web admin</a>'));
  assert.ok(staff.text.includes("You are signed in as <strong>@boss</strong>."));
});

test("an account awaiting approval is told so on the home page", async () => {
  const pending = await server.user("later");
  await server.rt.db
    .updateTable("users")
    .set({ approved: false })
    .where("account_id", "=", pending.accountId)
    .execute();
  const res = await visit({}, "later@example.test");
  assert.ok(res.text.includes("You are signed in as <strong>@later</strong>."));
  assert.ok(res.text.includes('<p class="notice" role="status">Your login is currently pending approval</p>'));
  assert.ok(!res.text.includes('href="/admin"'));
});

test("without sign-ups or public preview, the home page links neither", async () => {
  const closed = await startServer({ env: { REGISTRATIONS_MODE: "none", PUBLIC_PREVIEW: "false" } });
  try {
    const body = (await closed.get("/", { headers: HTML })).text;
    assert.ok(body.includes('<a href="/auth/sign_in">Sign in</a>'));
    assert.ok(!body.includes("/auth/sign_up"));
    assert.ok(!body.includes("/public/local"));
  } finally {
    await closed.close();
  }
});

test("the about page says what the server is, in the reader's language", async () => {
  const res = await server.get("/about", { headers: { "accept-language": "fr" } });
  assert.equal(res.status, 200);
  assert.ok(res.text.includes('<html lang="fr">'));
  assert.ok(res.text.includes("<title>À propos de ce serveur · Heron Club</title>"));
  assert.ok(res.text.includes('<p class="description">Birders of the &lt;river&gt;</p>'));
  assert.ok(res.text.includes("<h2>Règles</h2>"));
  assert.ok(res.text.includes('Contact: <a href="mailto:admin@heron.test">'));
  assert.ok(res.text.includes('<a href="/privacy-policy">Politique de confidentialité</a>'));
});

test("every page's icons are served: /favicon.ico and /favicon.svg", async () => {
  const page = (await server.get("/auth/sign_in")).text;
  assert.ok(page.includes('<link rel="icon" href="/favicon.ico" sizes="any">'));
  assert.ok(page.includes('<link rel="icon" href="/favicon.svg" type="image/svg+xml">'));
  const ico = await fetch(`${server.url}/favicon.ico`);
  assert.equal(ico.status, 200);
  assert.match(ico.headers.get("content-type") ?? "", /^image\/(x-icon|vnd\.microsoft\.icon)/);
  const bytes = Buffer.from(await ico.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], "an ICO header");
  assert.ok(bytes.subarray(22, 26).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])), "holding a PNG");
  const svg = await fetch(`${server.url}/favicon.svg`);
  assert.equal(svg.status, 200);
  assert.match(svg.headers.get("content-type") ?? "", /^image\/svg\+xml/);
  assert.match(await svg.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
});

test("the web admin's account page links to the public profile", async () => {
  const admin = await signInToAdmin(server, "boss");
  const res = await admin.get(`/admin/accounts/${alice.accountId}`);
  assert.equal(res.status, 200);
  assert.ok(
    res.text.includes(`<th>Public profile</th><td><a href="${server.url}/@alice">${server.url}/@alice</a></td>`),
  );
});

/** A GET to the test server naming `host` in its Host header, as a browser that typed it would. */
function getWithHost(path: string, host: string, accept: string) {
  const { port } = new URL(server.url);
  return new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, headers: { host, accept } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    })
      .on("error", reject)
      .end();
  });
}

test("a browser on another loopback name is sent to the server's address, as host-meta sends apps", async () => {
  const { port } = new URL(server.url);
  const moved = await getWithHost("/about?lang=de", `localhost:${port}`, HTML.accept);
  assert.deepEqual(moved, { status: 301, location: `${server.url}/about?lang=de` });
  const app = await getWithHost("/api/v1/instance", `localhost:${port}`, "application/json");
  assert.equal(app.status, 200, "apps are answered on any name");
  assert.equal((await getWithHost("/about", `127.0.0.1:${port}`, HTML.accept)).status, 200);
  assert.equal((await getWithHost("/about", "localhost:1", HTML.accept)).status, 200, "another port is another server");
  const hostMeta = await server.get("/.well-known/host-meta");
  assert.ok(hostMeta.text.includes(`template="${server.url}/.well-known/webfinger?resource={uri}"`));
});

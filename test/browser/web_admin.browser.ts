// The web admin in a real browser: staff sign in through the pages and use them as people do, and
// the API shows the effect.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { PASSWORD } from "../browser.ts";
import { post } from "../fixtures.ts";
import { startServer, type TestServer, type TestUser } from "../rig.ts";
import { inPage, launch, missingChromium, signIn } from "./chromium.ts";

let server: TestServer;
let browser: Browser;
let target: TestUser;
let reportId: string;

before(async () => {
  if (missingChromium) return;
  server = await startServer({ env: { SHOW_DOMAIN_BLOCKS: "all" } });
  browser = await launch();
  await server.user("mod", { role: "moderator" });
  await server.user("boss", { role: "admin" });
  const reporter = await server.user("reporter");
  target = await server.user("target");
  const status = await post(server, target, "Buy cheap watches at watches.example");
  const report = await server.post("/api/v1/reports", {
    token: reporter.token,
    json: { account_id: target.accountId, status_ids: [status.id], comment: "Spam again", category: "spam" },
  });
  assert.equal(report.status, 200, report.text);
  reportId = report.body.id;
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const skip = missingChromium ?? undefined;

test("a moderator handles a report through the pages", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "mod", "/admin/reports");
    await page.getByRole("link", { name: `Report #${reportId}` }).click();
    await page.waitForURL(`**/admin/reports/${reportId}`);
    assert.match(await page.locator("main").innerText(), /Buy cheap watches/);
    await page.getByRole("button", { name: "Assign to me" }).click();
    await page.getByRole("status").waitFor();
    await page.getByLabel("Category").selectOption("violation");
    await page.getByRole("button", { name: "Change category" }).click();
    await page.getByRole("button", { name: "Mark as resolved" }).click();
    await page.getByRole("button", { name: "Reopen" }).waitFor();

    const api = await server.user("modapi", { role: "moderator", scopes: ["admin:read"] });
    const report = (await server.get(`/api/v1/admin/reports/${reportId}`, { token: api.token })).body;
    assert.equal(report.action_taken, true);
    assert.equal(report.category, "violation");
    assert.equal(report.assigned_account.username, "mod");
  });
});

test("a moderator suspends the reported account from the report; the API answers 410; the audit log tells", {
  skip,
}, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "mod", `/admin/reports/${reportId}`);
    await page.getByRole("link", { name: "Act on this account" }).click();
    await page.waitForURL(`**/admin/accounts/${target.accountId}?report_id=${reportId}`);
    await page.getByLabel("Suspend").check();
    await page.getByLabel("Note to the account").fill("Spam, again and again");
    await page.getByRole("button", { name: "Perform action" }).click();
    await page.getByRole("status").waitFor();
    assert.match(await page.locator("main table").innerText(), /Suspended/);

    const reader = await server.user("reader");
    const gone = await server.get(`/api/v1/accounts/${target.accountId}`, { token: reader.token });
    assert.equal(gone.status, 410);

    await page.getByRole("link", { name: "Audit log" }).click();
    const first = page.locator("main tbody tr").first();
    assert.deepEqual((await first.locator("td").allInnerTexts()).slice(1), [
      "@mod",
      "suspend",
      "Account target",
      "Spam, again and again",
    ]);
  });
});

test("an admin blocks a domain and renames the server", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/domain_blocks");
    await page.getByLabel("Domain").fill("spam.example");
    await page.getByLabel("Severity").selectOption("silence");
    await page.getByLabel("Public comment").fill("Too much spam");
    await page.getByRole("button", { name: "Block domain" }).click();
    await page.getByRole("cell", { name: "spam.example" }).waitFor();
    assert.deepEqual(
      (await server.get("/api/v1/instance/domain_blocks")).body.map((b: any) => [b.domain, b.severity, b.comment]),
      [["spam.example", "silence", "Too much spam"]],
    );

    await page.getByRole("link", { name: "Server settings" }).click();
    await page.getByLabel("Server name").fill("Rookery Harbour");
    await page.getByLabel("Who can sign up").selectOption("approved");
    await page.getByRole("button", { name: "Save" }).first().click();
    await page.getByRole("status").waitFor();
    const instance = (await server.get("/api/v2/instance")).body;
    assert.equal(instance.title, "Rookery Harbour");
    assert.equal(instance.registrations.approval_required, true);
    assert.equal(await page.getByLabel("Server name").inputValue(), "Rookery Harbour");
  });
});

test("an admin creates a role and gives it to an account; the API shows it", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    const helper = await server.user("helper", { scopes: ["read", "admin:read"] });
    await signIn(page, server, "boss", "/admin/roles");
    await page.getByRole("link", { name: "New role" }).click();
    await page.getByLabel("Name").fill("Helpers");
    await page.getByLabel("Colour").fill("#336699");
    await page.getByLabel("Position").fill("7");
    await page.getByLabel("Show the role as a badge").check();
    await page.getByLabel("Manage reports").check();
    await page.getByRole("button", { name: "Create role" }).click();
    await page.getByRole("status").waitFor();
    await page.getByRole("cell", { name: "Helpers" }).waitFor();

    await page.goto(`${server.url}/admin/accounts/${helper.accountId}`);
    await page.getByLabel("Role", { exact: true }).selectOption({ label: "Helpers" });
    await page.getByRole("button", { name: "Save role" }).click();
    await page.getByRole("status").waitFor();
    assert.match(await page.locator("main table").innerText(), /Role\s+Helpers/);

    const me = (await server.get("/api/v1/accounts/verify_credentials", { token: helper.token })).body;
    assert.equal(me.role.name, "Helpers");
    assert.equal(me.role.color, "#336699");
    assert.deepEqual(me.roles, [{ id: me.role.id, name: "Helpers", color: "#336699" }]);
    assert.equal((await server.get("/api/v1/admin/reports", { token: helper.token })).status, 200);
    assert.equal((await server.get("/api/v1/admin/accounts", { token: helper.token })).status, 403);
  });
});

test("the pages follow the browser's language", { skip }, async (t) => {
  await inPage(
    t,
    browser,
    async (page) => {
      await signIn(page, server, "mod", "/admin/reports");
      assert.equal(await page.locator("html").getAttribute("lang"), "fr");
      await page.getByRole("link", { name: "Résolus", exact: true }).click();
      await page.getByRole("heading", { name: "Signalements" }).waitFor();
    },
    { locale: "fr-FR" },
  );
});

test("a newcomer starts at the home page, signs in there and finds the web admin; pages share one column", {
  skip,
}, async (t) => {
  await inPage(t, browser, async (page) => {
    const member = await server.user("member");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/`);
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel(/email/i).fill("boss@example.test");
    await page.getByLabel(/password/i).fill(PASSWORD);
    await page.locator("form[action='/auth/sign_in'] button[type=submit]").click();
    await page.waitForURL(`${server.url}/`);
    assert.match(await page.locator("main").innerText(), /You are signed in as @boss\./);

    const widths: number[] = [];
    for (const path of ["/", "/about", "/@member", "/tags/watches", "/auth/sign_in"]) {
      await page.goto(`${server.url}${path}`);
      widths.push(await page.locator("main").evaluate((m) => Math.round(m.getBoundingClientRect().width)));
    }
    assert.ok(widths[0] > 600 && widths[0] < 800, String(widths));
    assert.deepEqual(new Set(widths).size, 1, `one column width: ${widths}`);
    const iconWidth = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const img = new Image();
          img.onload = () => resolve(img.naturalWidth);
          img.onerror = () => resolve(0);
          img.src = "/favicon.ico";
        }),
    );
    assert.equal(iconWidth, 64, "the favicon is an image the browser draws");

    await page.goto(`${server.url}/`);
    await page.getByRole("link", { name: "Web admin" }).click();
    await page.waitForURL(/\/admin\/[a-z_]+$/);
    await page.goto(`${server.url}/admin/accounts/${member.accountId}`);
    await page.getByRole("link", { name: `${server.url}/@member` }).click();
    await page.waitForURL(`${server.url}/@member`);
    assert.match(await page.locator("h1").innerText(), /member/);
  });
});

// The web admin's dashboard, servers, announcements and invites in a real browser: an admin signs
// in and uses each page as people do, and the API (or the sign-up page) shows the effect.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { formFields, Browser as HttpBrowser, PASSWORD, submit } from "../browser.ts";
import { remoteAccount } from "../fixtures.ts";
import { startServer, type TestServer, type TestUser } from "../rig.ts";
import { inPage, launch, missingChromium, signIn } from "./chromium.ts";

let server: TestServer;
let browser: Browser;
let member: TestUser;

before(async () => {
  if (missingChromium) return;
  server = await startServer();
  browser = await launch();
  await server.user("boss", { role: "admin" });
  member = await server.user("member");
  const reporter = await server.user("reporter");
  const report = await server.post("/api/v1/reports", {
    token: reporter.token,
    json: { account_id: member.accountId, comment: "Spam" },
  });
  assert.equal(report.status, 200, report.text);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const skip = missingChromium ?? undefined;

test("the admin opens on the dashboard, which counts the open report", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/reports");
    await page.goto(`${server.url}/admin`);
    await page.waitForURL(/\/admin\/dashboard$/);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    const open = page.getByRole("row", { name: /Open reports/ });
    assert.equal(await open.getByRole("cell").innerText(), "1");
    await open.getByRole("link", { name: "1" }).click();
    await page.waitForURL(/\/admin\/reports$/);
    assert.match(await page.locator("main tbody").innerText(), /@member/);
  });
});

test("a server is listed once one of its accounts is known, and is blocked from its page", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/instances");
    await page.getByText("No server is known yet.").waitFor();
    await remoteAccount(server, "far", "faraway.example");
    await remoteAccount(server, "near", "nearby.example");
    await page.reload();
    await page.getByLabel("Server name contains").fill("faraway");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("link", { name: "faraway.example" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "nearby.example" }).count(), 0);
    const cells = await page.locator("main tbody tr").first().locator("td").allInnerTexts();
    assert.deepEqual(cells, ["faraway.example", "1", "0", "Never", "Never", "Available", "None"]);

    await page.getByRole("link", { name: "faraway.example" }).click();
    await page.getByRole("heading", { name: "faraway.example" }).waitFor();
    await page.getByRole("link", { name: "Block this server" }).click();
    assert.equal(await page.getByLabel("Domain").inputValue(), "faraway.example");
    await page.getByLabel("Severity").selectOption("suspend");
    await page.getByRole("button", { name: "Block domain" }).click();
    await page.getByRole("cell", { name: "faraway.example" }).waitFor();
    await page.goto(`${server.url}/admin/instances/faraway.example`);
    assert.equal(
      await page
        .getByRole("row", { name: /Moderation/ })
        .getByRole("cell")
        .innerText(),
      "Suspended",
    );
    const api = await server.user("fedapi", { role: "admin", scopes: ["admin:read"] });
    const blocks = (await server.get("/api/v1/admin/domain_blocks", { token: api.token })).body;
    assert.deepEqual(
      blocks.map((b: any) => [b.domain, b.severity]),
      [["faraway.example", "suspend"]],
    );
  });
});

test("an announcement written on the page is what the API serves; unpublished, it is gone", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/announcements");
    await page.getByRole("link", { name: "New announcement" }).click();
    await page.getByLabel("Text").fill("The server moves on Sunday");
    await page.getByLabel("Event starts").fill("2030-05-05T08:00");
    await page.getByLabel("Event ends").fill("2030-05-05T12:00");
    await page.getByRole("button", { name: "Publish announcement" }).click();
    await page.getByRole("status").waitFor();
    await page.getByRole("cell", { name: "The server moves on Sunday" }).waitFor();
    const shown = async () =>
      (await server.get("/api/v1/announcements", { token: member.token })).body.map((a: any) => [
        a.content,
        a.starts_at,
        a.ends_at,
      ]);
    assert.deepEqual(await shown(), [
      ["<p>The server moves on Sunday</p>", "2030-05-05T08:00:00.000Z", "2030-05-05T12:00:00.000Z"],
    ]);

    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByLabel("Text").fill("The server moves on Monday");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").waitFor();
    assert.equal((await shown())[0][0], "<p>The server moves on Monday</p>");

    await page.getByRole("button", { name: "Unpublish" }).click();
    await page.getByRole("cell", { name: "Unpublished" }).waitFor();
    assert.deepEqual(await shown(), []);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByRole("cell", { name: "Published", exact: true }).waitFor();
    assert.equal((await shown()).length, 1);
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No announcement yet.").waitFor();
    assert.deepEqual(await shown(), []);
  });
});

test("an invite deactivated on the admin page is refused at sign-up", { skip }, async (t) => {
  const http = new HttpBrowser(server);
  const signInPage = await http.get("/auth/sign_in");
  await http.post("/auth/sign_in", {
    ...formFields(signInPage.text, "/auth/sign_in"),
    email: "member@example.test",
    password: PASSWORD,
  });
  assert.equal((await submit(http, "/invites", "/invites", { max_uses: "1" })).status, 303);
  const { code } = await server.rt.db.selectFrom("invites").select("code").executeTakeFirstOrThrow();

  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/invites");
    const invite = page.getByRole("row", { name: new RegExp(code) });
    assert.deepEqual((await invite.locator("td").allInnerTexts()).slice(0, 3), [
      `${server.url}/invite/${code}`,
      "@member",
      "0 / 1",
    ]);
    await invite.getByRole("button", { name: "Deactivate" }).click();
    await page.getByText("No invite here.").waitFor();
    await page.getByRole("link", { name: "Expired" }).click();
    await page.getByRole("row", { name: new RegExp(code) }).waitFor();

    await page.goto(`${server.url}/invite/${code}`);
    await page.getByText("This invite link is invalid or has expired.").waitFor();
  });
});

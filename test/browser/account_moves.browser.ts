// Moving an account in a real browser: egret names heron as an alias on "Account aliases", then
// heron moves to egret on "Move to another account" with the password, and sees where it moved and
// when it may move again; heron's follower follows egret. The move page reads in German too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { PASSWORD } from "../browser.ts";
import { follow } from "../fixtures.ts";
import { startServer, type TestServer, type TestUser } from "../rig.ts";
import { inPage, launch, missingChromium, signIn } from "./chromium.ts";

let server: TestServer;
let browser: Browser;
let reader: TestUser;
let egret: TestUser;

before(async () => {
  if (missingChromium) return;
  server = await startServer();
  browser = await launch();
  const heron = await server.user("heron");
  egret = await server.user("egret");
  reader = await server.user("reader");
  await follow(server, reader, heron);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const skip = missingChromium ?? undefined;

test("an alias on the new account, then the move from the old one", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "egret", "/settings/aliases");
    await page.getByText("No alias yet.").waitFor();
    await page.getByLabel("Handle of the old account").fill("@heron");
    await page.getByRole("button", { name: "Add the alias" }).click();
    await page.getByText("Your changes are saved.").waitFor();
    await page.getByRole("cell", { name: "@heron" }).waitFor();
  });
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "heron", "/settings/migration");
    await page.getByRole("heading", { name: "What happens" }).waitFor();
    await page.getByLabel("Handle of the new account").fill("egret");
    await page.getByLabel("Current password").fill("not it");
    await page.getByRole("button", { name: "Move my followers" }).click();
    await page.getByRole("alert").getByText("The current password is not right.").waitFor();
    await page.getByLabel("Handle of the new account").fill("egret");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByRole("button", { name: "Move my followers" }).click();
    await page.getByText("This account has moved to @egret.").waitFor();
    await page.getByText(/You moved recently\. You can move again from \d{4}-\d\d-\d\d\./).waitFor();
    assert.equal(await page.getByRole("button", { name: "Move my followers" }).count(), 0);
  });
  await server.settle();
  const res = await server.get("/api/v1/accounts/relationships", {
    token: reader.token,
    query: { "id[]": egret.accountId },
  });
  assert.equal(res.body[0].following, true);
});

test("the move page in German", { skip }, async (t) => {
  await inPage(
    t,
    browser,
    async (page) => {
      await signIn(page, server, "reader", "/settings/migration");
      await page.getByRole("heading", { name: "Zu einem anderen Konto umziehen" }).waitFor();
      await page.getByLabel("Adresse des neuen Kontos").waitFor();
      await page.getByRole("link", { name: "Konto-Aliasse" }).click();
      await page.getByRole("button", { name: "Alias hinzufügen" }).waitFor();
    },
    { locale: "de-DE" },
  );
});

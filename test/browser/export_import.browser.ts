// Taking one's follows along in a real browser: a person signs in, downloads their follows file
// from /settings/export, and another person uploads it on /settings/import and watches it finish.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { follow } from "../fixtures.ts";
import { startServer, type TestServer } from "../rig.ts";
import { inPage, launch, missingChromium, signIn } from "./chromium.ts";

let server: TestServer;
let browser: Browser;

before(async () => {
  if (missingChromium) return;
  server = await startServer();
  browser = await launch();
  const leaving = await server.user("leaving");
  await server.user("arriving");
  await follow(server, leaving, await server.user("friend"));
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const skip = missingChromium ?? undefined;

test("a file downloaded from the export page is imported through the import page", { skip }, async (t) => {
  let file = Buffer.alloc(0);
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "leaving", "/settings/export");
    const download = page.waitForEvent("download");
    await page.locator("a[href='/settings/export/following.csv']").click();
    const done = await download;
    assert.equal(done.suggestedFilename(), "following_accounts.csv");
    // The browser keeps a download only as long as its context.
    file = await readFile(await done.path());
    assert.match(file.toString(), /^Account address,Show boosts,Notify on new posts,Languages\nfriend@/);
  });
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "arriving", "/settings/import");
    await page.getByLabel("Type of data").selectOption("following");
    await page
      .getByLabel("CSV file")
      .setInputFiles({ name: "following_accounts.csv", mimeType: "text/csv", buffer: file });
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByRole("status").waitFor();
    // The page reloads itself while the import runs.
    await page.getByRole("cell", { name: "Finished" }).waitFor({ timeout: 60_000 });
    assert.match(await page.locator("table").innerText(), /1 \/ 1/);
  });
  const arriving = await server.rt.db
    .selectFrom("accounts")
    .select("id")
    .where("username", "=", "arriving")
    .executeTakeFirstOrThrow();
  const follows = await server.rt.db
    .selectFrom("follows as f")
    .innerJoin("accounts as a", "a.id", "f.target_account_id")
    .select("a.username")
    .where("f.account_id", "=", arriving.id)
    .execute();
  assert.deepEqual(
    follows.map((f) => f.username),
    ["friend"],
  );
});

// The Relays page of the web admin in a real browser, against a stand-in relay on loopback: an admin
// adds a relay, sees it wait for the relay's approval and then enabled once the relay accepts,
// disables, enables and deletes it; a moderator, who may not manage federation, is refused; the
// page speaks German to a German browser.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "../remote_actors.ts";
import { startServer, type TestServer } from "../rig.ts";
import { inPage, launch, missingChromium, signIn } from "./chromium.ts";

let server: TestServer;
let browser: Browser;
let remote: RemoteServer;
let relay: RemoteActor;
let relayInbox: string;

before(async () => {
  if (missingChromium) return;
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  browser = await launch();
  await server.user("boss", { role: "admin" });
  await server.user("mod", { role: "moderator" });
  remote = await startRemoteServer();
  relay = remote.actor("relay");
  relayInbox = `${relay.id}/inbox`;
});
after(async () => {
  await browser?.close();
  await server?.close();
  await remote?.close();
});

const skip = missingChromium ?? undefined;

/** The relay accepts the Follow it received (once it has arrived). */
async function relayAccepts(): Promise<void> {
  const deadline = Date.now() + 60_000;
  let follow: { id: string } | undefined;
  while (!follow) {
    follow = remote.deliveries.map((d) => JSON.parse(d.body)).find((a) => a.type === "Follow");
    if (!follow && Date.now() > deadline) throw new Error("the relay received no Follow");
    if (!follow) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const inbox = `${server.url}/inbox`;
  const body = JSON.stringify({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${relay.id}#accepts/1`,
    type: "Accept",
    actor: relay.id,
    object: follow.id,
  });
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(relay, inbox, body, "draft-cavage"),
    body,
  });
  assert.equal(res.status, 202, await res.text());
}

test("an admin adds a relay, which is enabled once it accepts, then disables, enables and deletes it", {
  skip,
}, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/domain_blocks");
    await page.getByRole("link", { name: "Relays" }).click();
    await page.getByText("No relay is set up.").waitFor();
    await page.getByLabel("Inbox URL of the relay").fill(relayInbox);
    await page.getByRole("button", { name: "Add relay" }).click();
    await page.getByRole("status").waitFor();
    const row = page.getByRole("row", { name: new RegExp(relayInbox) });
    assert.match(await row.innerText(), /Waiting for the relay's approval/);

    await relayAccepts();
    const deadline = Date.now() + 60_000;
    while (!/Enabled/.test(await row.innerText())) {
      assert.ok(Date.now() < deadline, "the relay never showed as enabled");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await page.reload();
    }

    await row.getByRole("button", { name: "Disable" }).click();
    await page.getByRole("status").waitFor();
    assert.match(await row.innerText(), /Disabled/);
    await row.getByRole("button", { name: "Enable" }).click();
    await page.getByRole("status").waitFor();
    assert.match(await row.innerText(), /Waiting for the relay's approval/);
    await row.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No relay is set up.").waitFor();

    // A URL that is no http(s) URL is refused with the reason, and nothing is added.
    await page.getByLabel("Inbox URL of the relay").fill("ftp://relay.example/inbox");
    await page.getByRole("button", { name: "Add relay" }).click();
    await page.getByRole("alert").waitFor();
    assert.match(await page.getByRole("alert").innerText(), /Inbox URL is invalid/);
  });
});

test("a moderator may not open the relays; the page speaks the browser's language", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "mod", "/admin/reports");
    assert.equal(await page.getByRole("link", { name: "Relays" }).count(), 0);
    const res = await page.goto(`${server.url}/admin/relays`);
    assert.equal(res?.status(), 403);
  });
  await inPage(
    t,
    browser,
    async (page) => {
      await signIn(page, server, "boss", "/admin/relays");
      await page.getByRole("heading", { name: "Relais", exact: true }).waitFor();
      assert.equal(await page.getByLabel("Inbox-URL des Relais").count(), 1);
    },
    { locale: "de-DE" },
  );
});

// From a stranger to a signed-in account with two-factor sign-in, in a real browser, on a server
// whose registrations are open: sign up, follow the mailed link, sign in, turn on two-factor sign-in
// with a code computed here as an authenticator app would, and sign in again with a code.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Secret, TOTP } from "otpauth";
import type { Browser } from "playwright-core";
import { startMailbox } from "../mailbox.ts";
import { startServer, type TestServer } from "../rig.ts";
import { inPage, launch, missingChromium } from "./chromium.ts";

let server: TestServer;
let browser: Browser;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
const PASSWORD = "a long enough passphrase";

before(async () => {
  if (missingChromium) return;
  mailbox = await startMailbox();
  server = await startServer({
    env: { REGISTRATIONS_MODE: "open", SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" },
  });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await mailbox?.close();
});

const skip = missingChromium ?? undefined;

test("a stranger signs up, confirms, signs in and protects the account with two-factor sign-in", {
  skip,
}, async (t) => {
  await inPage(t, browser, async (page) => {
    await page.goto(`${server.url}/about`);
    await page.getByRole("link", { name: "Sign up" }).click();
    await page.waitForURL("**/auth/sign_up");
    await page.getByLabel("Username").fill("wren");
    await page.getByLabel("Email address").fill("wren@example.test");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Password, again").fill(PASSWORD);
    await page.getByLabel("I agree to the server's rules and terms").check();
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();

    const mail = await mailbox.mailTo("wren@example.test");
    const link = /(http:\/\/\S+\/auth\/confirmation\?confirmation_token=[\w-]+)/.exec(mail.text)![1];
    await page.goto(link);
    await page.getByText("Your email address is confirmed.").waitFor();

    await page.goto(`${server.url}/settings/two_factor`);
    await page.waitForURL("**/auth/sign_in?**");
    await page.getByLabel("Email address").fill("wren@example.test");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/settings/two_factor");
    await page.getByText("Two-factor sign-in is off").waitFor();

    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    await page.locator("figure.qr svg").waitFor();
    const secret = (await page.locator("#otp-secret").innerText()).trim();
    const app = new TOTP({ secret: Secret.fromBase32(secret) });
    await page.getByLabel("Code from the app").fill(app.generate());
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
    assert.equal(await page.locator("ul.recovery-codes li").count(), 10);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You have signed out.").waitFor();
    await page.goto(`${server.url}/settings/sessions`);
    await page.getByLabel("Email address").fill("wren@example.test");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Enter the code from your authenticator app").waitFor();
    // The next period's code: the one used to turn it on is spent.
    await page.getByLabel("Code").fill(app.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/settings/sessions");
    await page.getByText("This session").waitFor();
  });
  const user = await server.rt.db
    .selectFrom("users")
    .select(["otp_enabled", "confirmed_at"])
    .where("email", "=", "wren@example.test")
    .executeTakeFirstOrThrow();
  assert.equal(user.otp_enabled, true);
  assert.notEqual(user.confirmed_at, null);
});

test("in a German browser: the sign-up, the confirmation mail and the confirmation page speak German", {
  skip,
}, async (t) => {
  await inPage(
    t,
    browser,
    async (page) => {
      await page.goto(`${server.url}/auth/sign_up`);
      await page.getByLabel("Benutzername").fill("zaunkoenig");
      await page.getByLabel("E-Mail-Adresse").fill("zaunkoenig@example.test");
      await page.getByLabel("Passwort", { exact: true }).fill(PASSWORD);
      await page.getByLabel("Passwort wiederholen").fill(PASSWORD);
      await page.getByLabel("Ich stimme den Regeln und Bedingungen des Servers zu").check();
      await page.getByRole("button", { name: "Registrieren" }).click();
      await page.getByRole("heading", { name: "Sieh in dein Postfach" }).waitFor();

      const mail = await mailbox.mailTo("zaunkoenig@example.test");
      assert.match(mail.subject, /^Bestätige deine E-Mail-Adresse für /);
      const link = /(http:\/\/\S+\/auth\/confirmation\?confirmation_token=[\w-]+)/.exec(mail.text)![1];
      await page.goto(link);
      await page.getByRole("heading", { name: "E-Mail-Adresse bestätigt" }).waitFor();
      await page.getByText("Du kannst dich jetzt in deiner App anmelden.").waitFor();
      assert.equal(await page.getAttribute("html", "lang"), "de");
    },
    { locale: "de-DE" },
  );
});

// Headless Chromium for the browser tests: Debian's `chromium`, driven by playwright-core. A test
// that fails leaves a screenshot, whose path and base64 go to the log (CI keeps only the log).
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { PASSWORD } from "../browser.ts";
import type { TestServer } from "../rig.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why the browser tests can't run here, or null when they can. */
export const missingChromium = existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

const shots = mkdtempSync(join(tmpdir(), "rookery-screenshots-"));

/** Runs `steps` in a fresh page; on failure saves what the page showed and prints it to the log. */
export async function inPage(
  t: TestContext,
  browser: Browser,
  steps: (page: Page) => Promise<void>,
  o: { locale?: string } = {},
): Promise<void> {
  const context = await browser.newContext({ locale: o.locale ?? "en-US" });
  const page = await context.newPage();
  // Only a guard against a hang: a busy machine may take long to render a page.
  page.setDefaultTimeout(120_000);
  try {
    await steps(page);
  } catch (error) {
    const path = join(shots, `${t.name.replace(/[^a-z0-9]+/gi, "_").slice(0, 80)}.png`);
    try {
      const png = await page.screenshot({ path, fullPage: true });
      console.log(`screenshot of the failing page (${page.url()}): ${path}`);
      console.log(`screenshot base64: ${png.toString("base64")}`);
    } catch (shotError) {
      console.log(`no screenshot: ${shotError}`);
    }
    throw error;
  } finally {
    await context.close();
  }
}

/** Opens `path`, which asks to sign in first, signs in as `username` and waits to be back on `path`. */
export async function signIn(page: Page, server: TestServer, username: string, path: string): Promise<void> {
  await page.goto(`${server.url}${path}`);
  await page.getByLabel(/email|e-mail|correo/i).fill(`${username}@example.test`);
  await page.getByLabel(/password|passwort|mot de passe|contraseña/i).fill(PASSWORD);
  await page.locator("form[action='/auth/sign_in'] button[type=submit]").click();
  await page.waitForURL(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
}

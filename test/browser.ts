// A tiny browser for the HTML pages: keeps cookies, reads forms, follows nothing by itself.
import assert from "node:assert/strict";
import type { TestServer } from "./rig.ts";

export class Browser {
  readonly cookies = new Map<string, string>();
  readonly server: TestServer;
  /** Headers sent with every request (Accept-Language, X-Forwarded-For…). */
  readonly headers: Record<string, string>;

  constructor(server: TestServer, headers: Record<string, string> = {}) {
    this.server = server;
    this.headers = headers;
  }

  async request(method: "GET" | "POST", path: string, form?: Record<string, string | string[]>) {
    const headers: Record<string, string> = { ...this.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await this.server.request(method, path, { headers, form });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string) {
    return this.request("GET", path);
  }

  post(path: string, form: Record<string, string | string[]>) {
    return this.request("POST", path, form);
  }
}

function unescapeHtml(value: string): string {
  return value
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** The named inputs of the first form on a page whose action matches. */
export function formFields(html: string, action: string): Record<string, string> {
  const escaped = action.replace(/[/.?*+()[\]\\]/g, "\\$&");
  const form = new RegExp(`<form[^>]*action="${escaped}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form posting to ${action}`);
  const out: Record<string, string> = {};
  for (const m of form[1].matchAll(/<input[^>]*name="([^"]+)"(?:[^>]*?value="([^"]*)")?[^>]*>/g)) {
    out[m[1]] = unescapeHtml(m[2] ?? "");
  }
  return out;
}

/** The `lang` of a page's root element. */
export function pageLang(html: string): string | undefined {
  return /<html lang="([^"]*)">/.exec(html)?.[1];
}

export const PASSWORD = "correct horse battery staple";

/**
 * Walks an authorization URL through the pages as a person would: signs in when asked, then
 * approves (or denies) on the consent page. Returns the last response (the redirect to the app,
 * or the page that ended the flow).
 */
export async function authorizeThroughPages(
  browser: Browser,
  url: string,
  o: { decision?: "approve" | "deny"; email?: string } = {},
) {
  let page = await browser.get(url);
  if (page.status !== 200) return page;
  if (page.text.includes('action="/auth/sign_in"')) {
    const fields = formFields(page.text, "/auth/sign_in");
    const signedIn = await browser.post("/auth/sign_in", {
      ...fields,
      email: o.email ?? "alice@example.test",
      password: PASSWORD,
    });
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get("location"), fields.return_to);
    page = await browser.get(signedIn.headers.get("location")!);
    if (page.status !== 200 || !page.text.includes('action="/oauth/authorize"')) return page;
  }
  const decision = o.decision ?? "approve";
  return browser.post("/oauth/authorize", { ...formFields(page.text, "/oauth/authorize"), decision });
}

/** A browser signed in as `username` through the sign-in page the web admin sends visitors to. */
export async function signInToAdmin(
  server: TestServer,
  username: string,
  headers: Record<string, string> = {},
): Promise<Browser> {
  const browser = new Browser(server, headers);
  const first = await browser.get("/admin");
  assert.equal(first.status, 303);
  const signIn = await browser.get(first.headers.get("location")!);
  const res = await browser.post("/auth/sign_in", {
    ...formFields(signIn.text, "/auth/sign_in"),
    email: `${username}@example.test`,
    password: PASSWORD,
  });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/admin");
  return browser;
}

/** Posts a page's form (its CSRF token included) with `values`. */
export async function submit(
  browser: Browser,
  page: string,
  action: string,
  values: Record<string, string | string[]> = {},
) {
  const html = (await browser.get(page)).text;
  return browser.post(action, { ...formFields(html, action), ...values });
}

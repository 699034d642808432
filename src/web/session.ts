// Cookies of the web pages: the signed sign-in session, and the CSRF tokens every form carries.
// The session cookie holds a random token signed with SECRET_KEY_BASE; the server keeps only the
// token's hash in web_sessions, so deleting that row signs the browser out.
import { createHmac, timingSafeEqual } from "node:crypto";
import { deleteCookie, getCookie, getSignedCookie, setCookie, setSignedCookie } from "hono/cookie";
import { randomToken } from "../domain/secrets.ts";
import type { Ctx } from "../http/hono.ts";
import { SESSION_DAYS, type SessionUser, sessionUser } from "../services/auth/sessions.ts";

const SESSION = "_rookery_session";
// The browser's own secret, to bind the forms shown before there is a session (the sign-in form).
const BROWSER = "_rookery_browser";

function cookieOptions(c: Ctx, maxAge?: number) {
  return {
    path: "/",
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: c.get("rt").config.origin.startsWith("https:"),
    maxAge,
  };
}

export async function setSessionCookie(c: Ctx, token: string): Promise<void> {
  await setSignedCookie(c, SESSION, token, c.get("rt").config.secretKeyBase, cookieOptions(c, SESSION_DAYS * 86_400));
}

export function clearSessionCookie(c: Ctx): void {
  deleteCookie(c, SESSION, cookieOptions(c));
}

/** The session token of a request, when its cookie carries a valid signature. */
export async function sessionToken(c: Ctx): Promise<string | null> {
  const value = await getSignedCookie(c, c.get("rt").config.secretKeyBase, SESSION);
  return value || null;
}

/** The signed-in user, or null. */
export async function webUser(c: Ctx): Promise<SessionUser | null> {
  const token = await sessionToken(c);
  return token ? sessionUser(c.get("rt"), token) : null;
}

/**
 * What a form's CSRF token is bound to: the session when the browser has one (so signing in again
 * voids the forms of the old session), else the browser's own secret, made on first need.
 */
async function binding(c: Ctx, create: boolean): Promise<string | null> {
  const session = await sessionToken(c);
  if (session) return `session:${session}`;
  let secret = getCookie(c, BROWSER);
  if (!secret && create) {
    secret = randomToken();
    setCookie(c, BROWSER, secret, cookieOptions(c));
  }
  return secret ? `browser:${secret}` : null;
}

function sign(c: Ctx, bound: string): string {
  return createHmac("sha256", c.get("rt").config.secretKeyBase).update(`csrf:${bound}`).digest("base64url");
}

/** The token to put in a form. */
export async function csrfToken(c: Ctx): Promise<string> {
  return sign(c, (await binding(c, true))!);
}

/** Whether a submitted form carries the token of this browser's session. */
export async function validCsrf(c: Ctx, submitted: unknown): Promise<boolean> {
  const bound = await binding(c, false);
  if (!bound || typeof submitted !== "string") return false;
  const expected = Buffer.from(sign(c, bound));
  const given = Buffer.from(submitted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

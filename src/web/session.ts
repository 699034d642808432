// Cookies of the web pages: the signed sign-in session, and the CSRF tokens every form carries.
// The session cookie holds a random token signed with SECRET_KEY_BASE; the server keeps only the
// token's hash in web_sessions, so deleting that row signs the browser out.
import { createHmac, timingSafeEqual } from "node:crypto";
import { deleteCookie, getCookie, getSignedCookie, setCookie, setSignedCookie } from "hono/cookie";
import { randomToken } from "../domain/secrets.ts";
import { type Ctx, clientIp } from "../http/hono.ts";
import { createSession, endSession, SESSION_DAYS, type SessionUser, sessionUser } from "../services/auth/sessions.ts";

const SESSION = "_rookery_session";
// The browser's own secret, to bind the forms shown before there is a session (the sign-in form).
const BROWSER = "_rookery_browser";
// Between the password and the second factor: whose sign-in it is, signed, for a few minutes.
const PENDING = "_rookery_two_factor";
const PENDING_MS = 10 * 60_000;

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

/** Only paths of this server may be returned to after signing in. */
export function safeReturn(value: unknown): string {
  return typeof value === "string" && /^\/(?![/\\])/.test(value) ? value : "/";
}

/** Signs the browser in as `userId`: a new session, and the one it had (a forced sign-in) ends. */
export async function beginSession(c: Ctx, userId: string): Promise<void> {
  const previous = await sessionToken(c);
  if (previous) await endSession(c.get("rt"), previous);
  const token = await createSession(c.get("rt"), userId, {
    ip: clientIp(c),
    userAgent: c.req.header("user-agent") ?? null,
  });
  await setSessionCookie(c, token);
  deleteCookie(c, PENDING, cookieOptions(c));
}

/** Remembers that `userId` gave the right password and has yet to give a second factor. */
export async function setPendingSignIn(c: Ctx, userId: string): Promise<void> {
  const value = `${userId}.${Date.now() + PENDING_MS}`;
  await setSignedCookie(c, PENDING, value, c.get("rt").config.secretKeyBase, cookieOptions(c, PENDING_MS / 1000));
}

/** The user whose sign-in waits for a second factor in this browser, or null (none, or too old). */
export async function pendingSignIn(c: Ctx): Promise<string | null> {
  const value = await getSignedCookie(c, c.get("rt").config.secretKeyBase, PENDING);
  const [userId, expires] = (value || "").split(".");
  return userId && Number(expires) > Date.now() ? userId : null;
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

// GET/POST /oauth/authorize (sign in, then consent) and the sign-in and sign-out forms behind it.
// The request is checked before anyone signs in, in Doorkeeper's order; a request that can't safely
// be answered to the app (unknown client, unregistered redirect URI, bad scope…) gets an error page,
// never a redirect.
import { z } from "zod";
import { ApiError } from "../domain/errors.ts";
import { matchesRegistered, OOB, withFragment, withQuery } from "../domain/redirect_uris.ts";
import { inactiveReason } from "../domain/user_state.ts";
import { type Ctx, clientIp, params, router } from "../http/hono.ts";
import { parse, zBool } from "../http/validate.ts";
import { type Application, findApplication } from "../services/auth/apps.ts";
import {
  alreadyAuthorized,
  createGrant,
  grantableScopes,
  missingParameter,
  OAuthError,
} from "../services/auth/oauth.ts";
import { checkPassword, endSession, type SessionUser, TooManyAttempts } from "../services/auth/sessions.ts";
import { askSecondFactor } from "./account/two_factor_sign_in.ts";
import { type Language, pickLanguage } from "./i18n.ts";
import { codePage, consentPage, formPostPage, messagePage, signInPage } from "./oauth_pages.ts";
import {
  beginSession,
  clearSessionCookie,
  csrfToken,
  safeReturn,
  sessionToken,
  validCsrf,
  webUser,
} from "./session.ts";

export const oauthPages = router();

const text = z.string().optional();
const requestSchema = z.object({
  response_type: text,
  response_mode: text,
  client_id: text,
  redirect_uri: text,
  scope: text,
  state: text,
  code_challenge: text,
  code_challenge_method: text,
});

type ResponseMode = "query" | "fragment" | "form_post";
const RESPONSE_MODES: readonly string[] = ["query", "fragment", "form_post"];

interface AuthorizationRequest {
  app: Application;
  redirectUri: string;
  responseMode: ResponseMode;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: "S256" | "plain" | null;
  /** The request as checked, carried through the consent form. */
  fields: Record<string, string>;
}

/** A page to show instead of going on, in the page's language. */
class PageError extends Error {
  readonly status: 401 | 403 | 422;
  constructor(message: string, status: PageError["status"]) {
    super(message);
    this.status = status;
  }
}

async function readRequest(c: Ctx, given: Record<string, unknown>): Promise<AuthorizationRequest> {
  const parsed = requestSchema.safeParse(given);
  if (!parsed.success) throw new OAuthError("invalid_request");
  const raw = parsed.data;
  if (!raw.client_id) throw missingParameter("client_id");
  const app = await findApplication(c.get("rt"), { clientId: raw.client_id });
  if (!app) throw new OAuthError("invalid_client");
  // RFC 6749 §3.1.2.3: with a single registered URI, the request may leave it out.
  const redirectUri = raw.redirect_uri ?? (app.redirect_uris.length === 1 ? app.redirect_uris[0] : "");
  if (!matchesRegistered(redirectUri, app.redirect_uris)) throw new OAuthError("invalid_redirect_uri");
  if (!raw.response_type) throw missingParameter("response_type");
  if (raw.response_type !== "code") throw new OAuthError("unsupported_response_type");
  const responseMode = raw.response_mode ?? "query";
  if (!RESPONSE_MODES.includes(responseMode)) throw new OAuthError("unsupported_response_mode");
  const scopes = grantableScopes(raw.scope, app);
  // RFC 7636 §4.3: a challenge without a method is a plain one.
  const method = raw.code_challenge ? (raw.code_challenge_method ?? "plain") : null;
  if (method !== null && method !== "S256" && method !== "plain") {
    throw new OAuthError("invalid_code_challenge_method");
  }
  const fields: Record<string, string> = {
    response_type: "code",
    response_mode: responseMode,
    client_id: app.client_id,
    redirect_uri: redirectUri,
    scope: scopes.join(" "),
  };
  if (raw.state !== undefined) fields.state = raw.state;
  if (raw.code_challenge && method) {
    fields.code_challenge = raw.code_challenge;
    fields.code_challenge_method = method;
  }
  return {
    app,
    redirectUri,
    responseMode: responseMode as ResponseMode,
    scopes,
    state: raw.state,
    codeChallenge: raw.code_challenge ?? null,
    codeChallengeMethod: method,
    fields,
  };
}

function language(c: Ctx, lang: unknown): Language {
  return pickLanguage(lang, c.req.header("accept-language"));
}

/** Sends the app its answer (a code, or an error) the way it asked to receive it. */
async function answer(
  c: Ctx,
  lang: Language,
  request: AuthorizationRequest,
  values: Record<string, string>,
): Promise<Response> {
  if (request.state !== undefined) values.state = request.state;
  switch (request.responseMode) {
    case "fragment":
      return c.redirect(withFragment(request.redirectUri, values), 302);
    case "form_post":
      return c.html(
        formPostPage({ site: c.get("rt").config.site.title, lang, action: request.redirectUri, fields: values }),
      );
    default:
      return c.redirect(withQuery(request.redirectUri, values), 302);
  }
}

/** Issues the code and hands it over: to the app, or on a page for out-of-band apps. */
async function authorize(c: Ctx, lang: Language, request: AuthorizationRequest, user: SessionUser) {
  const code = await createGrant(c.get("rt"), {
    app: request.app,
    userId: user.id,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
  });
  if (request.redirectUri === OOB) {
    return c.html(codePage({ site: c.get("rt").config.site.title, lang, appName: request.app.name, code }));
  }
  return answer(c, lang, request, { code });
}

/** Runs a page handler; what goes wrong becomes an error page in the visitor's language. */
async function handle(c: Ctx, lang: Language, run: () => Promise<Response>): Promise<Response> {
  const site = c.get("rt").config.site.title;
  const title = lang.t.error.title;
  try {
    return await run();
  } catch (error) {
    if (error instanceof PageError) {
      return c.html(messagePage({ site, lang, title, message: error.message }), error.status);
    }
    // The server's own descriptions are in English, as Doorkeeper's are in the API.
    if (error instanceof OAuthError) {
      const message = error.description;
      return c.html(messagePage({ site, lang, title, message, messageLocale: "en" }), error.status);
    }
    if (error instanceof ApiError) {
      const status = error.status >= 500 ? 400 : error.status;
      return c.html(messagePage({ site, lang, title, message: error.message, messageLocale: "en" }), status);
    }
    throw error;
  }
}

export async function showSignIn(c: Ctx, lang: Language, returnTo: string, email?: string, error?: string) {
  const rt = c.get("rt");
  const signUp = rt.config.registrations.mode !== "none";
  return signInPage({ site: rt.config.site.title, lang, csrf: await csrfToken(c), returnTo, email, error, signUp });
}

oauthPages.get("/oauth/authorize", async (c) => {
  const all = await params(c);
  const lang = language(c, all.lang);
  return handle(c, lang, async () => {
    const request = await readRequest(c, all);
    const { force_login } = parse(z.object({ force_login: zBool() }), all);
    const user = force_login ? null : await webUser(c);
    if (!user) {
      // Come back here once signed in, without force_login (which would ask again).
      const back = new URL(c.req.url);
      back.searchParams.delete("force_login");
      return c.html(await showSignIn(c, lang, `${back.pathname}${back.search}`));
    }
    const reason = inactiveReason(user);
    if (reason) {
      const site = c.get("rt").config.site.title;
      const t = lang.t.blocked;
      return c.html(messagePage({ site, lang, title: t.title, message: t[reason], csrf: await csrfToken(c) }), 403);
    }
    // Mastodon asks once: the same app with the same scopes is authorized again without a page.
    if (await alreadyAuthorized(c.get("rt"), request.app, user.id, request.scopes)) {
      return authorize(c, lang, request, user);
    }
    const account = await c
      .get("rt")
      .db.selectFrom("accounts")
      .select("username")
      .where("id", "=", user.accountId)
      .executeTakeFirstOrThrow();
    return c.html(
      consentPage({
        site: c.get("rt").config.site.title,
        lang,
        csrf: await csrfToken(c),
        appName: request.app.name,
        appWebsite: request.app.website,
        username: account.username,
        scopes: request.scopes,
        fields: { ...request.fields, lang: lang.locale },
      }),
    );
  });
});

oauthPages.post("/oauth/authorize", async (c) => {
  const all = await params(c);
  const lang = language(c, all.lang);
  return handle(c, lang, async () => {
    if (!(await validCsrf(c, all.authenticity_token))) throw new PageError(lang.t.error.expired, 422);
    const request = await readRequest(c, all);
    const user = await webUser(c);
    if (!user) throw new PageError(lang.t.error.signInFirst, 401);
    const reason = inactiveReason(user);
    if (reason) throw new PageError(lang.t.blocked[reason], 403);
    if (all.decision === "approve") return authorize(c, lang, request, user);
    if (request.redirectUri === OOB) throw new PageError(lang.t.error.denied, 403);
    const denied = new OAuthError("access_denied");
    return answer(c, lang, request, { error: denied.code, error_description: denied.description });
  });
});

oauthPages.get("/auth/sign_in", async (c) => {
  const lang = language(c, c.req.query("lang"));
  return c.html(await showSignIn(c, lang, safeReturn(c.req.query("return_to"))));
});

oauthPages.post("/auth/sign_in", async (c) => {
  const p = await params(c);
  const lang = language(c, p.lang);
  const t = lang.t.signIn;
  const returnTo = safeReturn(p.return_to);
  const email = typeof p.email === "string" ? p.email : "";
  const again = async (error: string, status: 401 | 422 | 429) =>
    c.html(await showSignIn(c, lang, returnTo, email, error), status);
  if (!(await validCsrf(c, p.authenticity_token))) return again(t.expired, 422);
  let user: SessionUser | null;
  try {
    user = await checkPassword(c.get("rt"), email, typeof p.password === "string" ? p.password : "", clientIp(c));
  } catch (error) {
    if (!(error instanceof TooManyAttempts)) throw error;
    for (const [name, value] of Object.entries(error.headers())) c.header(name, value);
    return again(t.throttled, 429);
  }
  if (!user) return again(t.invalid, 401);
  if (user.otpEnabled) return askSecondFactor(c, lang, user.id, returnTo);
  await beginSession(c, user.id);
  return c.redirect(returnTo, 303);
});

oauthPages.post("/auth/sign_out", async (c) => {
  const p = await params(c);
  const lang = language(c, p.lang);
  const site = c.get("rt").config.site.title;
  if (!(await validCsrf(c, p.authenticity_token))) {
    return c.html(messagePage({ site, lang, title: lang.t.error.title, message: lang.t.error.expired }), 422);
  }
  const token = await sessionToken(c);
  if (token) await endSession(c.get("rt"), token);
  clearSessionCookie(c);
  return c.html(messagePage({ site, lang, title: lang.t.signOut.title, message: lang.t.signOut.done }));
});

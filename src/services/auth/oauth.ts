// The OAuth 2.0 grants: authorization codes (with PKCE), client credentials and passwords, and
// revocation. Failures are Doorkeeper's error codes and texts, which apps already understand.
import { createHash, timingSafeEqual } from "node:crypto";
import { newId } from "../../domain/ids.ts";
import { matchesRegistered } from "../../domain/redirect_uris.ts";
import { isSubset, parseScopes, unknownScopes } from "../../domain/scopes.ts";
import { randomToken, sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import type { Application } from "./apps.ts";
import { checkPassword } from "./sessions.ts";
import { type IssuedToken, issueToken, revokeTokenById } from "./tokens.ts";

const DESCRIPTIONS = {
  invalid_request:
    "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  // Only the revocation endpoint refuses clients, with this sentence.
  unauthorized_client: "You are not authorized to revoke this token",
  invalid_redirect_uri: "The requested redirect uri is malformed or doesn't match client redirect URI.",
  unsupported_response_type: "The authorization server does not support this response type.",
  unsupported_response_mode: "The authorization server does not support this response mode.",
  invalid_code_challenge_method: "The code_challenge_method must be one of S256, plain.",
  access_denied: "The resource owner or authorization server denied the request.",
} as const;

export type OAuthErrorCode = keyof typeof DESCRIPTIONS;

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: 400 | 401 | 403;
  readonly description: string;

  constructor(code: OAuthErrorCode, description?: string) {
    super(code);
    this.code = code;
    this.status = code === "invalid_client" ? 401 : code === "unauthorized_client" ? 403 : 400;
    this.description = description ?? DESCRIPTIONS[code];
  }
}

export const missingParameter = (name: string) =>
  new OAuthError("invalid_request", `Missing required parameter: ${name}.`);

const CODE_LIFETIME_MS = 10 * 60_000;

/** Scopes asked for (Mastodon's default is `read`), checked against what the app registered. */
export function grantableScopes(requested: string | null | undefined, app: Application): string[] {
  const scopes = parseScopes(requested);
  const allowed = app.scopes.split(" ").filter(Boolean);
  if (unknownScopes(scopes).length > 0 || !isSubset(scopes, allowed)) throw new OAuthError("invalid_scope");
  return scopes;
}

export interface NewGrant {
  app: Application;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: "S256" | "plain" | null;
}

/** Issues an authorization code (10 minutes, single use); only its hash is kept. */
export async function createGrant(rt: Runtime, g: NewGrant): Promise<string> {
  const code = randomToken();
  const now = new Date();
  await rt.db
    .insertInto("oauth_access_grants")
    .values({
      id: newId(),
      code_hash: sha256(code),
      application_id: g.app.id,
      user_id: g.userId,
      redirect_uri: g.redirectUri,
      scopes: g.scopes.join(" "),
      code_challenge: g.codeChallenge,
      code_challenge_method: g.codeChallengeMethod,
      expires_at: new Date(now.getTime() + CODE_LIFETIME_MS),
      used_at: null,
      created_at: now,
      access_token_id: null,
    })
    .execute();
  return code;
}

/**
 * Whether the user already holds a live token of this app with exactly these scopes. Mastodon then
 * skips the consent page: the user said yes to the same thing before.
 */
export async function alreadyAuthorized(rt: Runtime, app: Application, userId: string, scopes: string[]) {
  const wanted = [...scopes].sort().join(" ");
  const tokens = await rt.db
    .selectFrom("oauth_access_tokens")
    .select("scopes")
    .where("application_id", "=", app.id)
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .execute();
  return tokens.some((t) => t.scopes.split(" ").filter(Boolean).sort().join(" ") === wanted);
}

function verifierMatches(verifier: string, challenge: string, method: string | null): boolean {
  const computed = method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
  const a = Buffer.from(computed);
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface CodeExchange {
  app: Application;
  /** Whether the client proved its secret; a PKCE verifier can stand in for it. */
  authenticated: boolean;
  code: string | undefined;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
}

/** The authorization_code grant, failing in Doorkeeper's order so that apps see the same errors. */
export async function exchangeCode(rt: Runtime, x: CodeExchange): Promise<IssuedToken> {
  const grant = x.code
    ? await rt.db
        .selectFrom("oauth_access_grants")
        .selectAll()
        .where("code_hash", "=", sha256(x.code))
        .executeTakeFirst()
    : undefined;
  if (grant?.code_challenge && !x.codeVerifier) throw missingParameter("code_verifier");
  if (!x.redirectUri) throw missingParameter("redirect_uri");
  if (!x.authenticated && !grant?.code_challenge) throw new OAuthError("invalid_client");
  if (!grant || grant.application_id !== x.app.id) throw new OAuthError("invalid_grant");
  if (!matchesRegistered(x.redirectUri, [grant.redirect_uri])) throw new OAuthError("invalid_grant");
  if (x.codeVerifier) {
    if (!grant.code_challenge || !verifierMatches(x.codeVerifier, grant.code_challenge, grant.code_challenge_method)) {
      throw new OAuthError("invalid_grant");
    }
  }
  if (grant.used_at) {
    // Only whoever holds the code (and its verifier) gets here: the first exchange may have been
    // a thief's, so its token goes too.
    if (grant.access_token_id) await revokeTokenById(rt, grant.access_token_id);
    throw new OAuthError("invalid_grant");
  }
  const now = new Date();
  if (grant.expires_at <= now) throw new OAuthError("invalid_grant");
  return rt.db.transaction().execute(async (trx) => {
    // Single use, even when two requests race with the same code.
    const claimed = await trx
      .updateTable("oauth_access_grants")
      .set({ used_at: now })
      .where("id", "=", grant.id)
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) throw new OAuthError("invalid_grant");
    const issued = await issueToken(
      rt,
      { applicationId: x.app.id, userId: grant.user_id, scopes: grant.scopes.split(" ").filter(Boolean) },
      trx,
    );
    await trx
      .updateTable("oauth_access_grants")
      .set({ access_token_id: issued.id })
      .where("id", "=", grant.id)
      .execute();
    return issued;
  });
}

/** The client_credentials grant: a token of the app itself, for what needs no user. */
export async function clientCredentialsGrant(rt: Runtime, app: Application, scope: string | undefined) {
  return issueToken(rt, { applicationId: app.id, userId: null, scopes: grantableScopes(scope, app) });
}

/**
 * The password grant: `username` is the email address, as in Mastodon. An account with two-factor
 * sign-in gets no token this way (Mastodon's Doorkeeper finds no resource owner: invalid_grant).
 */
export async function passwordGrant(
  rt: Runtime,
  app: Application,
  input: { username: string | undefined; password: string | undefined; scope: string | undefined; ip: string | null },
) {
  const user =
    input.username && input.password ? await checkPassword(rt, input.username, input.password, input.ip) : null;
  if (!user || user.otpEnabled) throw new OAuthError("invalid_grant");
  return issueToken(rt, { applicationId: app.id, userId: user.id, scopes: grantableScopes(input.scope, app) });
}

/** RFC 7009: unknown tokens are fine; another app's token is not this app's to revoke. */
export async function revokeForClient(rt: Runtime, app: Application, token: string): Promise<void> {
  const row = await rt.db
    .selectFrom("oauth_access_tokens")
    .select(["id", "application_id"])
    .where("token_hash", "=", sha256(token))
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (!row) return;
  if (row.application_id !== app.id) throw new OAuthError("unauthorized_client");
  await revokeTokenById(rt, row.id);
}

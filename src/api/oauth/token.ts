// POST /oauth/token, POST /oauth/revoke, GET /oauth/userinfo and the authorization server metadata.
import { z } from "zod";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { type Ctx, clientIp, params, router } from "../../http/hono.ts";
import { renderToken } from "../../serializers/token.ts";
import { type Application, authenticateClient, findApplication } from "../../services/auth/apps.ts";
import {
  clientCredentialsGrant,
  exchangeCode,
  missingParameter,
  OAuthError,
  passwordGrant,
  revokeForClient,
} from "../../services/auth/oauth.ts";
import { TooManyAttempts } from "../../services/auth/sessions.ts";
import { accountEntity } from "../account_pages.ts";
import { requireUser } from "../auth.ts";

export const oauthApi = router();

const fields = z.object({
  grant_type: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  code: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  scope: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  token: z.string().optional(),
});

type Fields = z.output<typeof fields>;

const GRANT_TYPES = new Set(["authorization_code", "client_credentials", "password"]);

async function read(c: Ctx): Promise<Fields> {
  const result = fields.safeParse(await params(c));
  if (!result.success) throw new OAuthError("invalid_request");
  return result.data;
}

/**
 * The client's id and secret: from HTTP Basic (client_secret_basic) when the request has it, as
 * Doorkeeper looks there first, else from the body (client_secret_post).
 */
function credentials(c: Ctx, p: Fields): { id: string | undefined; secret: string | undefined } {
  const header = c.req.header("authorization");
  if (!header || !/^Basic\s/i.test(header)) return { id: p.client_id, secret: p.client_secret };
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, ""), "base64").toString();
  const colon = decoded.indexOf(":");
  if (colon <= 0) throw new OAuthError("invalid_client");
  try {
    // RFC 6749 §2.3.1: both halves are form-encoded.
    const formDecode = (v: string) => decodeURIComponent(v.replaceAll("+", " "));
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError("invalid_client");
  }
}

function oauthError(c: Ctx, error: unknown): Response {
  if (error instanceof OAuthError) {
    if (error.status === 401) {
      c.header(
        "WWW-Authenticate",
        `Bearer realm="Doorkeeper", error="${error.code}", error_description="${error.description}"`,
      );
    }
    return c.json({ error: error.code, error_description: error.description }, error.status);
  }
  if (error instanceof TooManyAttempts) {
    for (const [name, value] of Object.entries(error.headers())) c.header(name, value);
    return c.json({ error: "Too many requests" }, 429);
  }
  throw error;
}

/** The client, and whether it proved its secret (a known client_id alone is not proof). */
async function client(c: Ctx, p: Fields): Promise<{ app: Application; authenticated: boolean }> {
  const { id, secret } = credentials(c, p);
  if (!id) throw new OAuthError("invalid_client");
  if (secret) {
    const app = await authenticateClient(c.get("rt"), id, secret);
    if (!app) throw new OAuthError("invalid_client");
    return { app, authenticated: true };
  }
  const app = await findApplication(c.get("rt"), { clientId: id });
  if (!app) throw new OAuthError("invalid_client");
  return { app, authenticated: false };
}

oauthApi.post("/oauth/token", async (c) => {
  try {
    const p = await read(c);
    if (!p.grant_type) throw missingParameter("grant_type");
    if (!GRANT_TYPES.has(p.grant_type)) throw new OAuthError("unsupported_grant_type");
    const rt = c.get("rt");
    const { app, authenticated } = await client(c, p);
    if (p.grant_type === "authorization_code") {
      const issued = await exchangeCode(rt, {
        app,
        authenticated,
        code: p.code,
        redirectUri: p.redirect_uri,
        codeVerifier: p.code_verifier,
      });
      return c.json(renderToken(issued));
    }
    // Without a code, only the client's secret can prove who is asking.
    if (!authenticated) throw new OAuthError("invalid_client");
    if (p.grant_type === "client_credentials") {
      return c.json(renderToken(await clientCredentialsGrant(rt, app, p.scope)));
    }
    const issued = await passwordGrant(rt, app, {
      username: p.username,
      password: p.password,
      scope: p.scope,
      ip: clientIp(c),
    });
    return c.json(renderToken(issued));
  } catch (error) {
    return oauthError(c, error);
  }
});

oauthApi.post("/oauth/revoke", async (c) => {
  try {
    const p = await read(c);
    // RFC 7009 §2.1: the client authenticates; a client that can't is refused like a wrong owner.
    const caller = await client(c, p).catch((error) => {
      if (error instanceof OAuthError) return null;
      throw error;
    });
    if (!caller?.authenticated) throw new OAuthError("unauthorized_client");
    if (p.token) await revokeForClient(c.get("rt"), caller.app, p.token);
    return c.json({});
  } catch (error) {
    return oauthError(c, error);
  }
});

/** The OIDC claims of the signed-in user; OIDC also allows POST. */
async function userinfo(c: Ctx) {
  const account = await accountEntity(c.get("rt"), c.get("auth")!.user!.accountId);
  return c.json({
    iss: `${c.get("rt").config.origin}/`,
    sub: account!.uri,
    name: account!.display_name,
    preferred_username: account!.username,
    profile: account!.url,
    picture: account!.avatar,
  });
}

oauthApi.get("/oauth/userinfo", requireUser("profile"), userinfo);
oauthApi.post("/oauth/userinfo", requireUser("profile"), userinfo);

oauthApi.get("/.well-known/oauth-authorization-server", (c) => {
  const o = c.get("rt").config.origin;
  return c.json({
    issuer: `${o}/`,
    service_documentation: "https://docs.joinmastodon.org/",
    authorization_endpoint: `${o}/oauth/authorize`,
    token_endpoint: `${o}/oauth/token`,
    app_registration_endpoint: `${o}/api/v1/apps`,
    revocation_endpoint: `${o}/oauth/revoke`,
    userinfo_endpoint: `${o}/oauth/userinfo`,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query", "fragment", "form_post"],
    grant_types_supported: ["authorization_code", "password", "client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256", "plain"],
  });
});

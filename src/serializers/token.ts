// The Token entity: what POST /oauth/token and POST /api/v1/accounts answer.
import type { IssuedToken } from "../services/auth/tokens.ts";

export function renderToken(t: IssuedToken) {
  return {
    access_token: t.token,
    token_type: "Bearer",
    scope: t.scopes.join(" "),
    // Seconds since the epoch, as Doorkeeper gives it.
    created_at: Math.floor(t.createdAt.getTime() / 1000),
  };
}

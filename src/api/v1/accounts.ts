import { z } from "zod";
import { ApiError, notFound, unprocessable } from "../../domain/errors.ts";
import { clientIp, params, router } from "../../http/hono.ts";
import { parse, pathId, zBool, zIds, zInt, zText } from "../../http/validate.ts";
import { renderToken } from "../../serializers/token.ts";
import {
  lookupAccount,
  requireAccountExists,
  viewableAccount,
  viewableAccountIds,
} from "../../services/accounts/accounts.ts";
import { signUp } from "../../services/accounts/registration.ts";
import { searchAccounts } from "../../services/accounts/search.ts";
import { accountEntities, accountEntity } from "../account_pages.ts";
import { currentUser, requireToken, requireUser, tokenIfGiven } from "../auth.ts";

export const accounts = router();

const signUpSchema = z.object({
  username: zText(),
  email: zText(),
  password: zText(),
  agreement: z.unknown().optional(),
  locale: zText(),
  reason: zText(),
  date_of_birth: zText(),
  invite_code: zText(),
});

accounts.post("/api/v1/accounts", requireToken("write:accounts"), async (c) => {
  const auth = c.get("auth")!;
  if (auth.user) throw new ApiError(403, "This method requires an client credentials authentication");
  const p = parse(signUpSchema, await params(c));
  const token = await signUp(
    c.get("rt"),
    auth.applicationId!,
    {
      username: p.username,
      email: p.email,
      password: p.password,
      agreement: p.agreement,
      locale: p.locale,
      reason: p.reason,
      dateOfBirth: p.date_of_birth,
      inviteCode: p.invite_code,
    },
    clientIp(c),
  );
  return c.json(renderToken(token));
});

accounts.get("/api/v1/accounts/lookup", tokenIfGiven("read:accounts"), async (c) => {
  const p = parse(z.object({ acct: zText() }), await params(c));
  // Mastodon answers a missing acct the way it answers an unknown one.
  if (!p.acct) throw notFound();
  const { id } = await lookupAccount(c.get("rt"), p.acct);
  return c.json(await accountEntity(c.get("rt"), id));
});

accounts.get("/api/v1/accounts/search", requireUser("read:accounts"), async (c) => {
  // `resolve` would ask remote servers for an unknown `user@domain`; only known accounts are found.
  const p = parse(
    z.object({ q: zText(), limit: zInt(), offset: zInt(), resolve: zBool(), following: zBool() }),
    await params(c),
  );
  const ids = await searchAccounts(c.get("rt"), currentUser(c).accountId, {
    q: p.q ?? "",
    // Mastodon's limit_param: 40 by default, at most twice that.
    limit: Math.min(Math.abs(p.limit ?? 40), 80),
    offset: Math.max(p.offset ?? 0, 0),
    following: p.following ?? false,
  });
  return c.json(await accountEntities(c.get("rt"), ids));
});

accounts.get("/api/v1/accounts", tokenIfGiven("read:accounts"), async (c) => {
  const p = parse(z.object({ id: zIds() }), await params(c));
  const ids = [...new Set(p.id ?? [])];
  if (ids.length > 40) throw unprocessable("Validation failed: too many ids (at most 40)");
  return c.json(await accountEntities(c.get("rt"), await viewableAccountIds(c.get("rt"), ids)));
});

accounts.get("/api/v1/accounts/:id/identity_proofs", requireUser(), async (c) => {
  // Identity proofs were retired from Mastodon; the endpoint answers an empty list, as Mastodon's does.
  await requireAccountExists(c.get("rt"), pathId(c.req.param("id")));
  return c.json([]);
});

accounts.get("/api/v1/accounts/:id", tokenIfGiven("read:accounts"), async (c) => {
  const id = pathId(c.req.param("id"));
  await viewableAccount(c.get("rt"), id);
  return c.json(await accountEntity(c.get("rt"), id));
});

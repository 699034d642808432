import { z } from "zod";
import { ApiError } from "../../domain/errors.ts";
import { WORD_MAX } from "../../domain/lengths.ts";
import { INACTIVE_MESSAGES } from "../../domain/user_state.ts";
import { params, router } from "../../http/hono.ts";
import { fileParam, isObject } from "../../http/params.ts";
import { parse, truthy, zBool, zString, zStrings, zText } from "../../http/validate.ts";
import { type ProfileChanges, removeProfileImage, updateProfile } from "../../services/accounts/profile.ts";
import type { Auth, AuthUser } from "../../services/auth/authenticate.ts";
import { credentialAccountEntity } from "../account_pages.ts";
import { activeUser, currentUser, requireToken, requireUser } from "../auth.ts";

export const credentials = router();

/** Mastodon's `require_potential_user!`: any user but a suspended one. */
function potentialUser(auth: Auth): AuthUser {
  if (!auth.user) throw new ApiError(422, "This method requires an authenticated user");
  if (auth.user.suspended) throw new ApiError(403, INACTIVE_MESSAGES.disabled);
  return auth.user;
}

/**
 * With `allow_nonfunctional=true`, an app may see the account its token belongs to before the user
 * has confirmed their address or been approved (Mastodon's laxer check for sign-up flows).
 */
credentials.get("/api/v1/accounts/verify_credentials", requireToken("read:accounts", "profile"), async (c) => {
  const auth = c.get("auth")!;
  const user = truthy(c.req.query("allow_nonfunctional")) ? potentialUser(auth) : activeUser(auth);
  return c.json(await credentialAccountEntity(c.get("rt"), user.id));
});

const flag = zBool();
const field = z.object({ name: zString(), value: zString() });

const updateSchema = z.object({
  display_name: zString(),
  note: zString(),
  locked: flag,
  bot: flag,
  discoverable: flag,
  hide_collections: flag,
  indexable: flag,
  // `fields_attributes[0][name]` (a hash by index) or a JSON array.
  fields_attributes: z.union([z.array(field), z.record(z.string(), field)]).optional(),
  attribution_domains: zStrings(),
  source: z.preprocess(
    (v) => (isObject(v) ? v : undefined),
    z
      .object({
        privacy: zText(WORD_MAX),
        sensitive: zBool(),
        language: zString(WORD_MAX),
        quote_policy: zText(WORD_MAX),
      })
      .optional(),
  ),
});

function fieldsOf(value: z.output<typeof updateSchema>["fields_attributes"]) {
  if (value === undefined) return undefined;
  const entries = Array.isArray(value)
    ? value
    : Object.keys(value)
        .sort((a, b) => Number(a) - Number(b))
        .map((k) => value[k]);
  return entries.map((f) => ({ name: f.name ?? "", value: f.value ?? "" }));
}

/** `source[…]` values; an empty privacy means "leave as is", an empty language "detect it". */
function sourceOf(source: z.output<typeof updateSchema>["source"]): ProfileChanges["source"] {
  if (!source) return undefined;
  const out: NonNullable<ProfileChanges["source"]> = {};
  if (source.privacy !== undefined) out.privacy = source.privacy;
  if (source.sensitive !== undefined) out.sensitive = source.sensitive;
  if (source.language !== undefined) out.language = source.language.trim();
  if (source.quote_policy !== undefined) out.quotePolicy = source.quote_policy;
  return out;
}

credentials.patch("/api/v1/accounts/update_credentials", requireUser("write:accounts"), async (c) => {
  const all = await params(c);
  const p = parse(updateSchema, all);
  const user = currentUser(c);
  await updateProfile(c.get("rt"), user, {
    displayName: p.display_name,
    note: p.note,
    avatar: fileParam(all.avatar, "avatar") ?? undefined,
    header: fileParam(all.header, "header") ?? undefined,
    locked: p.locked,
    bot: p.bot,
    discoverable: p.discoverable,
    hideCollections: p.hide_collections,
    indexable: p.indexable,
    fields: fieldsOf(p.fields_attributes),
    attributionDomains: p.attribution_domains,
    source: sourceOf(p.source),
  });
  return c.json(await credentialAccountEntity(c.get("rt"), user.id));
});

for (const kind of ["avatar", "header"] as const) {
  credentials.delete(`/api/v1/profile/${kind}`, requireUser("write:accounts"), async (c) => {
    const user = currentUser(c);
    await removeProfileImage(c.get("rt"), user.accountId, kind);
    return c.json(await credentialAccountEntity(c.get("rt"), user.id));
  });
}

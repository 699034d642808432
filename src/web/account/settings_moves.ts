// /settings/aliases and /settings/migration: moving an account, as Mastodon's settings pages do.
// On the new account, a member names the old one as an alias ("moving from another account"); on
// the old one, they name the new account with their password, and the old account's followers
// move over. The page shows where the account moved and when it may move again.
import { html } from "hono/html";
import type { ApiError } from "../../domain/errors.ts";
import { type Ctx, clientIp, router } from "../../http/hono.ts";
import { addAlias, listAliases, removeAlias } from "../../services/accounts/aliases.ts";
import { cancelMove, moveOwnAccount, moveState } from "../../services/accounts/moves.ts";
import { type FieldProblems, field, formToken, problemsOf } from "./frame.ts";
import { type MemberVisit, memberRoute, saved, settingsPage } from "./settings_frame.ts";

export const movePages = router();

const text = (v: unknown) => (typeof v === "string" ? v : "");
const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * A refusal in the page's language: the handle's problems beside it, a wrong password and too many
 * attempts above the form, anything else as the service says it.
 */
function problems(v: MemberVisit, error: ApiError | null): { fields: FieldProblems | null; message?: string } {
  if (!error) return { fields: null };
  const fields = problemsOf(v.lang, error);
  if (fields?.current_password) return { fields: null, message: v.lang.t.account.settings.wrongPassword };
  if (fields) return { fields };
  if (error.status === 429) return { fields: null, message: v.lang.t.account.throttled };
  return { fields: null, message: error.message };
}

async function aliasesPage(c: Ctx, v: MemberVisit, error: ApiError | null = null) {
  const t = v.lang.t.account.settings.aliases;
  const p = problems(v, error);
  const aliases = await listAliases(c.get("rt"), v.user.accountId);
  const rows = aliases.map(
    (a) => html`<tr><td><code>@${a.acct}</code></td><td>
<form class="inline" method="post" action="/settings/aliases/${a.id}/delete">${formToken(v.lang, v.csrf)}<button type="submit">${t.remove}</button></form></td></tr>`,
  );
  return c.html(
    settingsPage(
      c,
      v,
      "aliases",
      html`<p>${t.lead}</p>
<form method="post" action="/settings/aliases">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "acct", label: t.handle, hint: t.handleHint, autocomplete: "off", problems: p.fields })}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>
<h2>${t.listTitle}</h2>
${aliases.length === 0 ? html`<p class="muted">${t.none}</p>` : html`<table><tbody>${rows}</tbody></table>`}`,
      p.message,
    ),
    error ? (error.status === 429 ? 429 : 422) : 200,
  );
}

movePages.get(
  "/settings/aliases",
  memberRoute((c, v) => aliasesPage(c, v)),
);
movePages.post(
  "/settings/aliases",
  memberRoute(
    async (c, v) => {
      await addAlias(c.get("rt"), v.user.accountId, text(v.params.acct));
      return saved(c, "/settings/aliases");
    },
    { render: aliasesPage },
  ),
);
movePages.post(
  "/settings/aliases/:id/delete",
  memberRoute(async (c, v) => {
    await removeAlias(c.get("rt"), v.user.accountId, c.req.param("id") ?? "");
    return saved(c, "/settings/aliases");
  }),
);

async function migrationPage(c: Ctx, v: MemberVisit, error: ApiError | null = null) {
  const t = v.lang.t.account.settings.migration;
  const p = problems(v, error);
  const state = await moveState(c.get("rt"), v.user.accountId);
  const moved = state.movedTo
    ? html`<p class="notice" id="moved-to">${t.movedTo(state.movedTo)}</p>
<form method="post" action="/settings/migration/cancel">${formToken(v.lang, v.csrf)}
  <p>${t.cancelLead}</p>
  <div class="actions"><button type="submit">${t.cancel}</button></div>
</form>`
    : "";
  const form = state.cooldownUntil
    ? html`<p class="notice" id="cooldown">${t.cooldown(day(state.cooldownUntil))}</p>`
    : html`<form method="post" action="/settings/migration">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "acct", label: t.handle, hint: t.handleHint, autocomplete: "off", problems: p.fields })}
  ${field({ name: "current_password", label: v.lang.t.account.settings.currentPassword, type: "password", autocomplete: "current-password" })}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>`;
  return c.html(
    settingsPage(
      c,
      v,
      "migration",
      html`${moved}<p>${t.lead}</p>
<h2>${t.whatHappens}</h2>
<ul>${t.effects.map((e) => html`<li>${e}</li>`)}</ul>
${form}`,
      p.message,
    ),
    error ? (error.status === 429 ? 429 : 422) : 200,
  );
}

movePages.get(
  "/settings/migration",
  memberRoute((c, v) => migrationPage(c, v)),
);
movePages.post(
  "/settings/migration",
  memberRoute(
    async (c, v) => {
      const o = { acct: text(v.params.acct), password: text(v.params.current_password), ip: clientIp(c) };
      await moveOwnAccount(c.get("rt"), v.user, o);
      return saved(c, "/settings/migration");
    },
    { render: migrationPage },
  ),
);
movePages.post(
  "/settings/migration/cancel",
  memberRoute(async (c, v) => {
    await cancelMove(c.get("rt"), v.user.accountId);
    return saved(c, "/settings/migration");
  }),
);

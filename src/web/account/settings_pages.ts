// /settings: the password, the email address, the sessions and the authorized apps of the signed-in
// member, each on its own page, and deleting the account (two-factor sign-in is in
// two_factor_settings.ts).
import { html } from "hono/html";
import { describeDevice } from "../../domain/devices.ts";
import { type ApiError, validationFailed } from "../../domain/errors.ts";
import { type Ctx, clientIp, router } from "../../http/hono.ts";
import { deleteOwnAccount } from "../../services/accounts/self_deletion.ts";
import { listAuthorizedApps, revokeAuthorizedApp } from "../../services/auth/authorized_apps.ts";
import { changeEmail, changePassword, pendingEmail } from "../../services/auth/credentials.ts";
import { endSessionById, listSessions } from "../../services/auth/user_sessions.ts";
import { clearSessionCookie } from "../session.ts";
import { type FieldProblems, field, formToken, noticePage, problemsOf } from "./frame.ts";
import { invitePages } from "./invites.ts";
import { type MemberVisit, memberRoute, saved, settingsPage } from "./settings_frame.ts";
import { twoFactorSettingsPages } from "./two_factor_settings.ts";

export const settingsPages = router();

const text = (v: unknown) => (typeof v === "string" ? v : "");
const when = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The problems of a refused form by field; a wrong current password is told in the page's words. */
function problems(v: MemberVisit, error: ApiError | null): { fields: FieldProblems | null; message?: string } {
  if (!error) return { fields: null };
  const fields = problemsOf(v.lang, error);
  if (fields?.current_password) return { fields, message: v.lang.t.account.settings.wrongPassword };
  if (fields) return { fields };
  if (error.status === 429) return { fields: null, message: v.lang.t.account.throttled };
  return { fields: null, message: error.message };
}

settingsPages.get(
  "/settings",
  memberRoute(async (c) => c.redirect("/settings/password", 303)),
);

async function passwordPage(c: Ctx, v: MemberVisit, error: ApiError | null = null) {
  const t = v.lang.t.account.settings;
  const p = problems(v, error);
  return c.html(
    settingsPage(
      c,
      v,
      "password",
      html`<p>${t.password.lead}</p>
<form method="post" action="/settings/password">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "current_password", label: t.currentPassword, type: "password", autocomplete: "current-password" })}
  ${field({ name: "password", label: t.password.new, type: "password", problems: p.fields, autocomplete: "new-password", hint: v.lang.t.account.signUp.passwordHint })}
  ${field({ name: "password_confirmation", label: t.password.confirm, type: "password", problems: p.fields, autocomplete: "new-password" })}
  <div class="actions"><button class="primary" type="submit">${t.password.submit}</button></div>
</form>`,
      p.message,
    ),
    error ? (error.status === 429 ? 429 : 422) : 200,
  );
}

settingsPages.get(
  "/settings/password",
  memberRoute((c, v) => passwordPage(c, v)),
);
settingsPages.post(
  "/settings/password",
  memberRoute(
    async (c, v) => {
      if (text(v.params.password) !== text(v.params.password_confirmation)) {
        throw validationFailed({
          password_confirmation: [{ error: "ERR_CONFIRMATION", description: "doesn't match Password" }],
        });
      }
      await changePassword(c.get("rt"), v.user, {
        current: text(v.params.current_password),
        password: text(v.params.password),
        ip: clientIp(c),
      });
      return saved(c, "/settings/password");
    },
    { render: passwordPage },
  ),
);

async function emailPage(c: Ctx, v: MemberVisit, error: ApiError | null = null) {
  const t = v.lang.t.account.settings.email;
  const p = problems(v, error);
  const pending = await pendingEmail(c.get("rt"), v.user.id);
  return c.html(
    settingsPage(
      c,
      v,
      "email",
      html`<p>${t.current(v.user.email)}</p>
${pending ? html`<p class="notice">${t.pending(pending)}</p>` : ""}
<p>${t.lead}</p>
<form method="post" action="/settings/email">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "email", label: t.new, type: "email", problems: p.fields, autocomplete: "email", value: error ? text(v.params.email) : undefined })}
  ${field({ name: "current_password", label: v.lang.t.account.settings.currentPassword, type: "password", autocomplete: "current-password" })}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>`,
      p.message,
    ),
    error ? (error.status === 429 ? 429 : 422) : 200,
  );
}

settingsPages.get(
  "/settings/email",
  memberRoute((c, v) => emailPage(c, v)),
);
settingsPages.post(
  "/settings/email",
  memberRoute(
    async (c, v) => {
      await changeEmail(c.get("rt"), v.user, {
        current: text(v.params.current_password),
        email: text(v.params.email),
        ip: clientIp(c),
        locale: v.lang.locale,
      });
      return saved(c, "/settings/email");
    },
    { render: emailPage },
  ),
);

settingsPages.get(
  "/settings/sessions",
  memberRoute(async (c, v) => {
    const t = v.lang.t.account.settings.sessions;
    const sessions = await listSessions(c.get("rt"), v.user.id);
    const rows = sessions.map(
      (s) => html`<tr>
  <td>${describeDevice(s.user_agent)}</td><td>${s.ip ?? ""}</td><td>${when(s.last_seen_at)}</td>
  <td>${
    s.id === v.user.sessionId
      ? html`<strong>${t.current}</strong>`
      : html`<form class="inline" method="post" action="/settings/sessions/${s.id}/sign_out">${formToken(v.lang, v.csrf)}<button type="submit">${t.signOut}</button></form>`
  }</td>
</tr>`,
    );
    return c.html(
      settingsPage(
        c,
        v,
        "sessions",
        html`<p>${t.lead}</p>
<table><thead><tr><th>${t.device}</th><th>${t.address}</th><th>${t.lastUsed}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`,
      ),
    );
  }),
);

settingsPages.post(
  "/settings/sessions/:id/sign_out",
  memberRoute(async (c, v) => {
    const id = c.req.param("id") ?? "";
    if (/^\d{1,20}$/.test(id)) await endSessionById(c.get("rt"), v.user.id, id);
    return saved(c, "/settings/sessions");
  }),
);

settingsPages.get(
  "/settings/applications",
  memberRoute(async (c, v) => {
    const t = v.lang.t.account.settings.apps;
    const apps = await listAuthorizedApps(c.get("rt"), v.user.id);
    const rows = apps.map(
      (a) => html`<tr>
  <td>${a.website ? html`<a href="${a.website}" rel="noopener noreferrer">${a.name}</a>` : a.name}</td>
  <td>${a.scopes.map((s) => html`<code>${s}</code> `)}</td>
  <td>${when(a.authorizedAt)}</td><td>${a.lastUsedAt ? when(a.lastUsedAt) : t.never}</td>
  <td><form class="inline" method="post" action="/settings/applications/${a.id}/revoke">${formToken(v.lang, v.csrf)}<button type="submit">${t.revoke}</button></form></td>
</tr>`,
    );
    return c.html(
      settingsPage(
        c,
        v,
        "apps",
        html`<p>${t.lead}</p>
${
  apps.length === 0
    ? html`<p class="muted">${t.none}</p>`
    : html`<table><thead><tr><th></th><th>${t.scopes}</th><th>${t.authorized}</th><th>${t.lastUsed}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
}`,
      ),
    );
  }),
);

settingsPages.post(
  "/settings/applications/:id/revoke",
  memberRoute(async (c, v) => {
    const id = c.req.param("id") ?? "";
    if (/^\d{1,20}$/.test(id)) await revokeAuthorizedApp(c.get("rt"), v.user.id, id);
    return saved(c, "/settings/applications");
  }),
);

async function deletePage(c: Ctx, v: MemberVisit, error: ApiError | null = null) {
  const t = v.lang.t.account.settings;
  const p = problems(v, error);
  return c.html(
    settingsPage(
      c,
      v,
      "delete",
      html`<p>${t.delete.lead}</p>
<form method="post" action="/settings/delete">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "current_password", label: t.currentPassword, type: "password", autocomplete: "current-password" })}
  <div class="actions"><button type="submit">${t.delete.submit}</button></div>
</form>`,
      p.message,
    ),
    error ? (error.status === 429 ? 429 : 422) : 200,
  );
}

settingsPages.get(
  "/settings/delete",
  memberRoute((c, v) => deletePage(c, v)),
);
settingsPages.post(
  "/settings/delete",
  memberRoute(
    async (c, v) => {
      await deleteOwnAccount(c.get("rt"), v.user, text(v.params.current_password), clientIp(c));
      clearSessionCookie(c);
      const t = v.lang.t.account.settings.delete;
      return c.html(noticePage(c, v.lang, t.doneTitle, t.done));
    },
    { render: deletePage },
  ),
);

settingsPages.route("/", twoFactorSettingsPages);
settingsPages.route("/", invitePages);

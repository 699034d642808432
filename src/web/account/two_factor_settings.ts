// /settings/two_factor: turning two-factor sign-in on (a QR code drawn on the server as SVG by the
// `qrcode` library, the secret as text and as its otpauth:// URI, then a code from the app, then the
// recovery codes, shown once) and off (with a code).
import { html, raw } from "hono/html";
import QRCode from "qrcode";
import type { ApiError } from "../../domain/errors.ts";
import { type Ctx, router } from "../../http/hono.ts";
import { TooManyAttempts } from "../../services/auth/sessions.ts";
import {
  confirmTwoFactor,
  disableTwoFactor,
  recoveryCodesLeft,
  startTwoFactorSetup,
} from "../../services/auth/two_factor.ts";
import { field, formToken } from "./frame.ts";
import { type MemberVisit, memberRoute, saved, settingsPage } from "./settings_frame.ts";

export const twoFactorSettingsPages = router();

const text = (v: unknown) => (typeof v === "string" ? v : "");

async function statusPage(c: Ctx, v: MemberVisit, error?: string, status: 200 | 401 | 429 = 200) {
  const t = v.lang.t.account.settings.twoFactor;
  const on = v.user.otpEnabled;
  const body = on
    ? html`<p class="notice">${t.on}</p>
<p>${t.codesLeft(await recoveryCodesLeft(c.get("rt"), v.user.id))}</p>
<h2>${t.disable}</h2>
<p>${t.disableLead}</p>
<form method="post" action="/settings/two_factor/disable">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "code", label: v.lang.t.account.twoFactorSignIn.code, autocomplete: "one-time-code" })}
  <div class="actions"><button type="submit">${t.disable}</button></div>
</form>`
    : html`<p>${t.off}</p>
<form method="post" action="/settings/two_factor/setup">
  ${formToken(v.lang, v.csrf)}
  <div class="actions"><button class="primary" type="submit">${t.setUp}</button></div>
</form>`;
  return c.html(settingsPage(c, v, "twoFactor", body, error), status);
}

async function setupPage(c: Ctx, v: MemberVisit, error?: string) {
  const t = v.lang.t.account.settings.twoFactor;
  const setup = await startTwoFactorSetup(c.get("rt"), v.user.id);
  const svg = await QRCode.toString(setup.uri, { type: "svg", margin: 2, width: 240 });
  return c.html(
    settingsPage(
      c,
      v,
      "twoFactor",
      html`<p>${t.scan}</p>
<figure class="qr" role="img" aria-label="QR code">${raw(svg)}</figure>
<p>${t.secret}: <code class="secret" id="otp-secret">${setup.secret}</code></p>
<p class="muted"><code id="otp-uri">${setup.uri}</code></p>
<form method="post" action="/settings/two_factor/confirm">
  ${formToken(v.lang, v.csrf)}
  ${field({ name: "code", label: t.code, autocomplete: "one-time-code" })}
  <div class="actions"><button class="primary" type="submit">${t.confirm}</button></div>
</form>`,
      error,
    ),
    error ? 422 : 200,
  );
}

twoFactorSettingsPages.get(
  "/settings/two_factor",
  memberRoute((c, v) => statusPage(c, v)),
);

twoFactorSettingsPages.post(
  "/settings/two_factor/setup",
  memberRoute((c, v) => (v.user.otpEnabled ? statusPage(c, v) : setupPage(c, v))),
);

twoFactorSettingsPages.post(
  "/settings/two_factor/confirm",
  memberRoute(
    async (c, v) => {
      const t = v.lang.t.account.settings.twoFactor;
      const codes = await confirmTwoFactor(c.get("rt"), v.user.id, text(v.params.code));
      if (!codes) return setupPage(c, v, t.wrongCode);
      return c.html(
        settingsPage(
          c,
          v,
          "twoFactor",
          html`<p class="notice">${t.on}</p>
<h2>${t.codesTitle}</h2>
<p>${t.codesLead}</p>
<ul class="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a href="/settings/two_factor">${v.lang.t.account.links.settings}</a></p>`,
        ),
      );
    },
    { render: (c, v, error: ApiError) => statusPage(c, v, error.message) },
  ),
);

twoFactorSettingsPages.post(
  "/settings/two_factor/disable",
  memberRoute(async (c, v) => {
    const t = v.lang.t.account;
    if (!v.user.otpEnabled) return saved(c, "/settings/two_factor");
    try {
      if (!(await disableTwoFactor(c.get("rt"), v.user.id, text(v.params.code)))) {
        return statusPage(c, v, t.twoFactorSignIn.wrong, 401);
      }
    } catch (error) {
      if (!(error instanceof TooManyAttempts)) throw error;
      for (const [name, value] of Object.entries(error.headers())) c.header(name, value);
      return statusPage(c, v, t.throttled, 429);
    }
    return saved(c, "/settings/two_factor");
  }),
);

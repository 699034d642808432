// Custom emojis (Mastodon's Admin::CustomEmojisController): this server's, uploaded here (a
// multipart form) and given a category, listed in or left out of the picker, enabled, disabled or
// deleted; and other servers', disabled, deleted or copied here. The rules and files are those of
// `rookery emoji` (services/emojis/custom_emojis.ts), through the staff services of admin_emojis.ts.
import { html } from "hono/html";
import { unprocessable } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { router } from "../../http/hono.ts";
import { fileParam } from "../../http/params.ts";
import { renderCustomEmojis } from "../../serializers/custom_emoji.ts";
import {
  changeEmoji,
  copyEmoji,
  deleteEmoji,
  listLocalEmojis,
  listRemoteEmojis,
  uploadEmoji,
} from "../../services/emojis/admin_emojis.ts";
import type { EmojiChanges } from "../../services/emojis/custom_emojis.ts";
import { safeUrl } from "../public_pages/render.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const customEmojiPages = router();

const PATH = "/admin/custom_emojis";
const PAGE_SIZE = 40;
const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** The list a form goes back to: this server's emojis, or (`?origin=remote`) other servers'. */
const listOf = (staff: StaffVisit) => (staff.params.origin === "remote" ? `${PATH}?origin=remote` : PATH);

customEmojiPages.get(
  PATH,
  adminRoute("manageCustomEmojis", async (c, staff) => {
    const t = staff.lang.t.admin.customEmojis;
    const rt = c.get("rt");
    const p = staff.params;
    const remote = p.origin === "remote";
    const filter = {
      shortcode: text(p.shortcode) || undefined,
      domain: remote ? text(p.domain) || undefined : undefined,
    };
    const maxId = typeof p.max_id === "string" && isId(p.max_id) ? p.max_id : null;
    const page = { maxId, sinceId: null, minId: null, limit: PAGE_SIZE };
    const query = Object.fromEntries(
      Object.entries({ origin: remote ? "remote" : undefined, ...filter }).filter((e): e is [string, string] =>
        Boolean(e[1]),
      ),
    );
    const here = remote ? "?origin=remote" : "";
    let rows: unknown[];
    let next: string | null;
    if (remote) {
      const found = await listRemoteEmojis(rt, staff.actor, filter, page);
      next = found.next;
      rows = found.items.map((e) => {
        const path = `${PATH}/${e.id}`;
        return html`<tr>
  <td><a href="${safeUrl(e.image_url)}">${t.image}</a></td>
  <td><code>:${e.shortcode}:</code></td>
  <td>${e.domain}</td>
  <td>${e.disabled ? t.disabled : t.enabled}</td>
  <td>${e.disabled ? button(staff, `${path}/enable${here}`, t.enable) : button(staff, `${path}/disable${here}`, t.disable)}
    ${button(staff, `${path}/copy${here}`, t.copy)} ${button(staff, `${path}/delete${here}`, t.delete)}</td>
</tr>`;
      });
    } else {
      const found = await listLocalEmojis(rt, staff.actor, filter, page);
      next = found.next;
      const images = renderCustomEmojis(rt.config, found.items);
      rows = found.items.map((e, i) => {
        const path = `${PATH}/${e.id}`;
        return html`<tr>
  <td><img src="${images[i]!.static_url}" alt=":${e.shortcode}:" width="32" height="32"></td>
  <td><code>:${e.shortcode}:</code></td>
  <td><form class="inline" method="post" action="${path}/category">${formToken(staff)}
    <input name="category" type="text" value="${e.category ?? ""}" aria-label="${t.category} :${e.shortcode}:">
    <button type="submit">${t.changeCategory}</button></form></td>
  <td>${e.visible_in_picker ? t.listed : t.unlisted}</td>
  <td>${e.disabled ? t.disabled : t.enabled}</td>
  <td>${e.visible_in_picker ? button(staff, `${path}/unlist`, t.unlist) : button(staff, `${path}/list`, t.list)}
    ${e.disabled ? button(staff, `${path}/enable`, t.enable) : button(staff, `${path}/disable`, t.disable)}
    ${button(staff, `${path}/delete`, t.delete)}</td>
</tr>`;
      });
    }
    const older = next
      ? html`<p><a href="${PATH}?${new URLSearchParams({ ...query, max_id: next })}">${t.older}</a></p>`
      : "";
    const head = remote
      ? html`<tr><th>${t.image}</th><th>${t.shortcode}</th><th>${t.domain}</th><th>${t.state}</th><th></th></tr>`
      : html`<tr><th>${t.image}</th><th>${t.shortcode}</th><th>${t.category}</th><th>${t.picker}</th><th>${t.state}</th><th></th></tr>`;
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "customEmojis",
        body: html`<p><a href="${PATH}"${remote ? "" : html` aria-current="page"`}>${t.local}</a> ·
<a href="${PATH}?origin=remote"${remote ? html` aria-current="page"` : ""}>${t.remote}</a></p>
<form method="get" action="${PATH}">
  <input type="hidden" name="lang" value="${staff.lang.locale}">
  ${remote ? html`<input type="hidden" name="origin" value="remote">` : ""}
  <label for="shortcode">${t.shortcode}</label>
  <input id="shortcode" name="shortcode" type="text" value="${filter.shortcode ?? ""}">
  ${
    remote
      ? html`<label for="domain">${t.domain}</label>
  <input id="domain" name="domain" type="text" value="${filter.domain ?? ""}">`
      : ""
  }
  <div class="actions"><button class="primary" type="submit">${t.search}</button></div>
</form>
${rows.length === 0 ? html`<p>${t.none}</p>` : html`<table><thead>${head}</thead><tbody>${rows}</tbody></table>`}${older}
${
  remote
    ? ""
    : html`<h2>${t.upload}</h2>
<form method="post" action="${PATH}" enctype="multipart/form-data">${formToken(staff)}
  <label for="new_shortcode">${t.shortcode}</label>
  <input id="new_shortcode" name="shortcode" type="text" required pattern="[a-zA-Z0-9_]{2,}">
  <label for="image">${t.file}</label>
  <input id="image" name="image" type="file" required accept="image/png,image/gif,image/webp">
  <label for="new_category">${t.category}</label>
  <input id="new_category" name="category" type="text">
  <p><label><input type="checkbox" name="unlisted" value="1"> ${t.unlistedHint}</label></p>
  <div class="actions"><button class="primary" type="submit">${t.uploadButton}</button></div>
</form>`
}`,
      }),
    );
  }),
);

customEmojiPages.post(
  PATH,
  adminRoute("manageCustomEmojis", async (c, staff) => {
    const p = staff.params;
    const image = fileParam(p.image, "image");
    if (!image) throw unprocessable("Validation failed: Image can't be blank");
    await uploadEmoji(c.get("rt"), staff.actor, {
      shortcode: text(p.shortcode),
      image: image.bytes,
      category: text(p.category) || null,
      unlisted: p.unlisted === "1",
    });
    return saved(c, PATH);
  }),
);

customEmojiPages.post(
  `${PATH}/:id/category`,
  adminRoute("manageCustomEmojis", async (c, staff) => {
    await changeEmoji(c.get("rt"), staff.actor, c.req.param("id") ?? "", { category: text(staff.params.category) });
    return saved(c, listOf(staff));
  }),
);

const changes: Record<string, EmojiChanges> = {
  list: { visibleInPicker: true },
  unlist: { visibleInPicker: false },
  enable: { disabled: false },
  disable: { disabled: true },
};

for (const [action, change] of Object.entries(changes)) {
  customEmojiPages.post(
    `${PATH}/:id/${action}`,
    adminRoute("manageCustomEmojis", async (c, staff) => {
      await changeEmoji(c.get("rt"), staff.actor, c.req.param("id") ?? "", change);
      return saved(c, listOf(staff));
    }),
  );
}

customEmojiPages.post(
  `${PATH}/:id/copy`,
  adminRoute("manageCustomEmojis", async (c, staff) => {
    await copyEmoji(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    return saved(c, listOf(staff));
  }),
);

customEmojiPages.post(
  `${PATH}/:id/delete`,
  adminRoute("manageCustomEmojis", async (c, staff) => {
    await deleteEmoji(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    return saved(c, listOf(staff));
  }),
);

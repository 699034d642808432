// Hashtags (Mastodon's Admin::TagsController): find them by name and review state, with their use
// over the last week, and decide on one whether it may be used, trend and be listed. The same
// services as the admin API's `/api/v1/admin/tags` (updating one marks it reviewed, as Mastodon's
// form does).
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { type Ctx, router } from "../../http/hono.ts";
import { renderAdminTags } from "../../serializers/admin_tag.ts";
import { getTag, listTags, TAG_STATUSES, updateTag } from "../../services/moderation/admin_tags.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import type { Tag } from "../../services/statuses/tags.ts";
import { adminPage, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const tagPages = router();

const PATH = "/admin/tags";
const PAGE_SIZE = 40;
const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** A week's uses and accounts, added up day by day as Mastodon's admin shows them. */
export const weekTotals = (history: { uses: string; accounts: string }[]) => ({
  uses: history.reduce((n, d) => n + Number(d.uses), 0),
  accounts: history.reduce((n, d) => n + Number(d.accounts), 0),
});

/** The Admin::Tag entities of `tags`, as the API renders them. */
export async function adminTags(c: Ctx, staff: StaffVisit, tags: Tag[]) {
  const rt = c.get("rt");
  return renderAdminTags(rt.config, await loadTagViews(rt, tags, staff.actor.accountId));
}

const reviewState = (staff: StaffVisit, tag: Tag) => {
  const t = staff.lang.t.admin.tags;
  return tag.reviewed_at ? t.reviewedOn(new Date(tag.reviewed_at).toISOString().slice(0, 10)) : t.unreviewed;
};

tagPages.get(
  PATH,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const t = staff.lang.t.admin.tags;
    const p = staff.params;
    const filter = { name: text(p.name) || undefined, status: TAG_STATUSES.find((s) => s === p.status) };
    const maxId = typeof p.max_id === "string" && isId(p.max_id) ? p.max_id : null;
    const page = await listTags(
      c.get("rt"),
      staff.actor,
      { maxId, sinceId: null, minId: null, limit: PAGE_SIZE },
      filter,
    );
    const rendered = await adminTags(c, staff, page.items);
    const query = Object.fromEntries(Object.entries(filter).filter((e): e is [string, string] => Boolean(e[1])));
    const older = page.next
      ? html`<p><a href="${PATH}?${new URLSearchParams({ ...query, max_id: page.next })}">${t.older}</a></p>`
      : "";
    const option = (value: string, label: string) =>
      html`<option value="${value}"${value === (filter.status ?? "") ? " selected" : ""}>${label}</option>`;
    const flags = (tag: (typeof rendered)[number]) =>
      [
        tag.usable ? "" : `${t.usable}: ${t.no}`,
        tag.trendable ? t.trendable : "",
        tag.listable ? "" : `${t.listable}: ${t.no}`,
      ]
        .filter(Boolean)
        .join(", ");
    const rows = page.items.map((tag, i) => {
      const week = weekTotals(rendered[i]!.history);
      return html`<tr><td><a href="${PATH}/${tag.id}">#${tag.display_name}</a></td><td>${week.uses}</td><td>${week.accounts}</td><td>${reviewState(staff, tag)}</td><td>${flags(rendered[i]!)}</td></tr>`;
    });
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "tags",
        body: html`<form method="get" action="${PATH}">
  <input type="hidden" name="lang" value="${staff.lang.locale}">
  <label for="name">${t.name}</label>
  <input id="name" name="name" type="text" value="${filter.name ?? ""}">
  <label for="status">${t.review}</label>
  <select id="status" name="status">${option("", t.any)}${option("reviewed", t.reviewed)}${option("unreviewed", t.unreviewed)}</select>
  <div class="actions"><button class="primary" type="submit">${t.search}</button></div>
</form>
${
  rows.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.name}</th><th>${t.uses}</th><th>${t.accounts}</th><th>${t.review}</th><th>${t.allowed}</th></tr></thead>
<tbody>${rows}</tbody></table>`
}${older}`,
      }),
    );
  }),
);

tagPages.get(
  `${PATH}/:id`,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const t = staff.lang.t.admin.tags;
    const tag = await getTag(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    const [entity] = await adminTags(c, staff, [tag]);
    const week = weekTotals(entity!.history);
    const box = (name: "usable" | "trendable" | "listable") =>
      html`<p><label><input type="checkbox" name="${name}" value="1"${entity![name] ? " checked" : ""}> ${t[name]}</label></p>`;
    return c.html(
      adminPage(c, staff, {
        title: `#${tag.display_name}`,
        section: "tags",
        body: html`<table>
<tr><th>${t.uses}</th><td>${week.uses}</td></tr>
<tr><th>${t.accounts}</th><td>${week.accounts}</td></tr>
<tr><th>${t.review}</th><td>${reviewState(staff, tag)}</td></tr>
</table>
<form method="post" action="${PATH}/${tag.id}">${formToken(staff)}
  <label for="display_name">${t.displayName}</label>
  <input id="display_name" name="display_name" type="text" value="${tag.display_name}">
  ${box("usable")}${box("trendable")}${box("listable")}
  <p class="muted">${t.saveReviews}</p>
  <div class="actions"><button class="primary" type="submit">${t.save}</button></div>
</form>`,
      }),
    );
  }),
);

// An unticked box sends nothing: every flag the form shows is set, as Rails' hidden "0" fields do.
tagPages.post(
  `${PATH}/:id`,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    const p = staff.params;
    await updateTag(c.get("rt"), staff.actor, id, {
      displayName: text(p.display_name) || undefined,
      usable: p.usable === "1",
      trendable: p.trendable === "1",
      listable: p.listable === "1",
    });
    return saved(c, `${PATH}/${id}`);
  }),
);

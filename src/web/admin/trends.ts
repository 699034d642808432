// Trend review (Mastodon's Admin::Trends): the hashtags, posts and links that trend or would, and
// the sites links come from (publishers), each approved or rejected on the same services as the
// admin API's `/api/v1/admin/trends/…/approve|reject`.
import { html, raw } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { type Ctx, router } from "../../http/hono.ts";
import { renderStatuses } from "../../serializers/status.ts";
import {
  linkTrendsForReview,
  listProviders,
  reviewLinkTrend,
  reviewProvider,
} from "../../services/moderation/admin_links.ts";
import {
  reviewStatusTrend,
  reviewTagTrend,
  statusTrendsForReview,
  tagTrendsForReview,
} from "../../services/moderation/admin_tags.ts";
import type { Staff } from "../../services/moderation/staff.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
import { safeUrl } from "../public_pages/render.ts";
import { adminPage, button } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";
import { adminTags, weekTotals } from "./tags.ts";

export const trendPages = router();

const PATH = "/admin/trends";
// Twice Mastodon's default page of each, its largest.
const TAGS = 20;
const STATUSES = 40;
const LINKS = 20;
const PUBLISHERS = 100;

const KINDS = ["tags", "statuses", "links", "publishers"] as const;
type Kind = (typeof KINDS)[number];

interface TrendStatus {
  id: string;
  content: string;
  spoiler_text: string;
  url: string | null;
  uri: string;
  account: { acct: string };
}

function frame(c: Ctx, staff: StaffVisit, kind: Kind, body: unknown) {
  const t = staff.lang.t.admin.trends;
  const tabs = KINDS.map(
    (k) =>
      html`<a href="${PATH}/${k === "publishers" ? "links/publishers" : k}"${k === kind ? html` aria-current="page"` : ""}>${t[k]}</a>`,
  );
  return c.html(
    adminPage(c, staff, {
      title: `${t.title}: ${t[kind]}`,
      section: "trends",
      body: html`<p>${tabs.map((tab, i) => (i === 0 ? tab : html` · ${tab}`))}</p>
<p class="muted">${t.lead}</p>
${body}`,
    }),
  );
}

/** The two buttons of an item, posting to `{path}/approve` and `{path}/reject`. */
const review = (staff: StaffVisit, path: string) => {
  const t = staff.lang.t.admin.trends;
  return html`${button(staff, `${path}/approve`, t.approve)} ${button(staff, `${path}/reject`, t.reject)}`;
};

const stateOf = (staff: StaffVisit, trendable: boolean | null, requiresReview: boolean) => {
  const t = staff.lang.t.admin.trends;
  if (requiresReview) return t.pending;
  if (trendable === null) return t.notReviewed;
  return trendable ? t.approved : t.rejected;
};

trendPages.get(
  `${PATH}/tags`,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const t = staff.lang.t.admin.trends;
    const tags = await tagTrendsForReview(c.get("rt"), staff.actor, TAGS);
    const rendered = await adminTags(c, staff, tags);
    const rows = tags.map(
      (tag, i) =>
        html`<tr><td><a href="/admin/tags/${tag.id}">#${tag.display_name}</a></td><td>${weekTotals(rendered[i]!.history).accounts}</td><td>${stateOf(staff, tag.trendable, tag.reviewed_at === null)}</td><td>${review(staff, `${PATH}/tags/${tag.id}`)}</td></tr>`,
    );
    return frame(
      c,
      staff,
      "tags",
      rows.length === 0
        ? html`<p>${t.none}</p>`
        : html`<table><thead><tr><th>${t.tags}</th><th>${t.accounts}</th><th>${t.state}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`,
    );
  }),
);

trendPages.get(
  `${PATH}/statuses`,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const t = staff.lang.t.admin.trends;
    const rt = c.get("rt");
    const trends = await statusTrendsForReview(rt, staff.actor, STATUSES);
    const views = await loadStatusViews(
      rt,
      staff.actor.accountId,
      trends.map((s) => s.id),
      { context: "public" },
    );
    // The Status entity as the API renders it (its content is already safe HTML).
    const byId = new Map(renderStatuses(rt, views).map((s) => [s.id, s as unknown as TrendStatus]));
    const items = trends.flatMap((trend) => {
      const s = byId.get(trend.id);
      if (!s) return [];
      return [
        html`<blockquote>
  ${s.spoiler_text ? html`<p><strong>${s.spoiler_text}</strong></p>` : ""}${raw(s.content)}
  <p class="muted"><a href="${safeUrl(s.url ?? s.uri)}">@${s.account.acct}</a> · ${t.state}: ${stateOf(staff, trend.trendable, false)}</p>
  <p>${review(staff, `${PATH}/statuses/${s.id}`)}</p>
</blockquote>`,
      ];
    });
    return frame(c, staff, "statuses", items.length === 0 ? html`<p>${t.none}</p>` : items);
  }),
);

trendPages.get(
  `${PATH}/links`,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const t = staff.lang.t.admin.trends;
    const links = await linkTrendsForReview(c.get("rt"), staff.actor, LINKS);
    const rows = links.map(
      ({ card, history, requiresReview }) => html`<tr>
  <td><a href="${safeUrl(card.url)}">${card.title || card.url}</a><br><span class="muted">${card.provider_name || new URL(card.url).hostname}</span></td>
  <td>${weekTotals(history).accounts}</td>
  <td>${stateOf(staff, requiresReview ? null : true, requiresReview)}</td>
  <td>${review(staff, `${PATH}/links/${card.id}`)}</td>
</tr>`,
    );
    return frame(
      c,
      staff,
      "links",
      rows.length === 0
        ? html`<p>${t.none}</p>`
        : html`<table><thead><tr><th>${t.link}</th><th>${t.people}</th><th>${t.state}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`,
    );
  }),
);

trendPages.get(
  `${PATH}/links/publishers`,
  adminRoute("manageTaxonomies", async (c, staff) => {
    const t = staff.lang.t.admin.trends;
    const maxId = typeof staff.params.max_id === "string" && isId(staff.params.max_id) ? staff.params.max_id : null;
    const page = await listProviders(c.get("rt"), staff.actor, {
      maxId,
      sinceId: null,
      minId: null,
      limit: PUBLISHERS,
    });
    const rows = page.items.map(
      (p) =>
        html`<tr><td>${p.domain}</td><td>${stateOf(staff, p.trendable, p.reviewed_at === null)}</td><td>${review(staff, `${PATH}/links/publishers/${p.id}`)}</td></tr>`,
    );
    const older = page.next
      ? html`<p><a href="${PATH}/links/publishers?${new URLSearchParams({ max_id: page.next })}">${t.publishers}</a></p>`
      : "";
    return frame(
      c,
      staff,
      "publishers",
      rows.length === 0
        ? html`<p>${t.noPublishers}</p>`
        : html`<table><thead><tr><th>${t.domain}</th><th>${t.state}</th><th></th></tr></thead><tbody>${rows}</tbody></table>${older}`,
    );
  }),
);

type Review = (
  rt: Parameters<typeof reviewProvider>[0],
  actor: Staff,
  id: string,
  approve: boolean,
) => Promise<unknown>;

const reviews: [string, Review][] = [
  ["tags", reviewTagTrend],
  ["statuses", reviewStatusTrend],
  ["links", reviewLinkTrend],
  ["links/publishers", reviewProvider],
];

for (const [kind, run] of reviews) {
  for (const [action, approve] of [
    ["approve", true],
    ["reject", false],
  ] as const) {
    trendPages.post(
      `${PATH}/${kind}/:id/${action}`,
      adminRoute("manageTaxonomies", async (c, staff) => {
        await run(c.get("rt"), staff.actor, c.req.param("id") ?? "", approve);
        return saved(c, `${PATH}/${kind}`);
      }),
    );
  }
}

// Announcements: every one (published, scheduled, unpublished or ended), and forms to write, edit,
// publish, unpublish and delete them, through the service `rookery announcements` uses.
import { html } from "hono/html";
import { unprocessable } from "../../domain/errors.ts";
import { router } from "../../http/hono.ts";
import {
  type Announcement,
  addAnnouncement,
  allAnnouncements,
  getAnnouncement,
  type NewAnnouncement,
  publishAnnouncement,
  removeAnnouncement,
  unpublishAnnouncement,
  updateAnnouncement,
} from "../../services/announcements/announcements.ts";
import { minute } from "./format.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const announcementPages = router();

const PATH = "/admin/announcements";
/** What a datetime-local field sends: a minute (or second) without a zone, read as UTC. */
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
/** A datetime-local field's value for a time. */
const field = (d: Date | null) => (d ? d.toISOString().slice(0, 16) : "");

/** A time field's value; its English name in the error, as the services' messages are. */
function time(value: unknown, name: string): Date | null {
  const given = text(value);
  if (given === "") return null;
  const d = LOCAL_TIME.test(given) ? new Date(`${given}Z`) : null;
  if (!d || Number.isNaN(d.getTime())) throw unprocessable(`Validation failed: ${name} is not a date and time`);
  return d;
}

function input(staff: StaffVisit): NewAnnouncement {
  const p = staff.params;
  return {
    text: text(p.text).slice(0, 10_000),
    startsAt: time(p.starts_at, "Starts at"),
    endsAt: time(p.ends_at, "Ends at"),
    allDay: p.all_day === "1",
    publishAt: time(p.publish_at, "Publish at"),
  };
}

function state(staff: StaffVisit, a: Announcement): string {
  const t = staff.lang.t.admin.announcements;
  const now = new Date();
  if (!a.published) return t.unpublished;
  if (a.published_at > now) return t.scheduled(minute(a.published_at));
  return a.ends_at && a.ends_at <= now ? t.ended : t.published;
}

function form(staff: StaffVisit, action: string, a: Announcement | null, submitLabel: string) {
  const t = staff.lang.t.admin.announcements;
  return html`<form method="post" action="${action}">${formToken(staff)}
  <label for="text">${t.text}</label>
  <textarea id="text" name="text" required>${a?.text ?? ""}</textarea>
  <label for="starts_at">${t.startsAt}</label>
  <input id="starts_at" name="starts_at" type="datetime-local" value="${field(a?.starts_at ?? null)}">
  <label for="ends_at">${t.endsAt}</label>
  <input id="ends_at" name="ends_at" type="datetime-local" value="${field(a?.ends_at ?? null)}">
  <p><label><input type="checkbox" name="all_day" value="1"${a?.all_day ? " checked" : ""}> ${t.allDay}</label></p>
  <label for="publish_at">${t.publishAt}</label>
  <input id="publish_at" name="publish_at" type="datetime-local" value="${a && a.published_at > new Date() ? field(a.published_at) : ""}">
  <div class="actions"><button class="primary" type="submit">${submitLabel}</button></div>
</form>`;
}

announcementPages.get(
  PATH,
  adminRoute("manageAnnouncements", async (c, staff) => {
    const t = staff.lang.t.admin.announcements;
    const list = (await allAnnouncements(c.get("rt"), staff.actor)).reverse();
    const rows = list.map((a) => {
      const path = `${PATH}/${a.id}`;
      const live = a.published && a.published_at <= new Date();
      return html`<tr>
  <td>${a.text}</td>
  <td>${a.starts_at || a.ends_at ? `${a.starts_at ? minute(a.starts_at) : ""} – ${a.ends_at ? minute(a.ends_at) : ""}` : "—"}</td>
  <td>${state(staff, a)}</td>
  <td><a href="${path}/edit">${t.edit}</a>
    ${live ? button(staff, `${path}/unpublish`, t.unpublish) : button(staff, `${path}/publish`, t.publish)}
    ${button(staff, `${path}/remove`, t.remove)}</td>
</tr>`;
    });
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "announcements",
        body: html`<p><a href="${PATH}/new">${t.add}</a></p>
${
  list.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.text}</th><th>${t.when}</th><th>${t.state}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
}`,
      }),
    );
  }),
);

announcementPages.get(
  `${PATH}/new`,
  adminRoute("manageAnnouncements", async (c, staff) => {
    const t = staff.lang.t.admin.announcements;
    return c.html(
      adminPage(c, staff, { title: t.newTitle, section: "announcements", body: form(staff, PATH, null, t.create) }),
    );
  }),
);

announcementPages.post(
  PATH,
  adminRoute("manageAnnouncements", async (c, staff) => {
    await addAnnouncement(c.get("rt"), input(staff), staff.actor);
    return saved(c, PATH);
  }),
);

announcementPages.get(
  `${PATH}/:id/edit`,
  adminRoute("manageAnnouncements", async (c, staff) => {
    const t = staff.lang.t.admin.announcements;
    const a = await getAnnouncement(c.get("rt"), c.req.param("id") ?? "", staff.actor);
    return c.html(
      adminPage(c, staff, {
        title: t.editTitle,
        section: "announcements",
        body: form(staff, `${PATH}/${a.id}`, a, t.save),
      }),
    );
  }),
);

announcementPages.post(
  `${PATH}/:id`,
  adminRoute("manageAnnouncements", async (c, staff) => {
    await updateAnnouncement(c.get("rt"), c.req.param("id") ?? "", input(staff), staff.actor);
    return saved(c, PATH);
  }),
);

const actions = {
  publish: publishAnnouncement,
  unpublish: unpublishAnnouncement,
  remove: removeAnnouncement,
} as const;

for (const [name, run] of Object.entries(actions)) {
  announcementPages.post(
    `${PATH}/:id/${name}`,
    adminRoute("manageAnnouncements", async (c, staff) => {
      await run(c.get("rt"), c.req.param("id") ?? "", staff.actor);
      return saved(c, PATH);
    }),
  );
}

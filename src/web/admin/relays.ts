// Relays (Mastodon's admin page of the same name): the relays this server follows with the state
// of each, a form to add one (which follows it at once), and enable, disable and delete buttons,
// through the relays service, as `rookery relays` uses it.
import { html } from "hono/html";
import { router } from "../../http/hono.ts";
import { addRelay, disableRelay, enableRelay, listRelays, removeRelay } from "../../services/federation/relays.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, saved } from "./guard.ts";

export const relayPages = router();

const RELAYS = "/admin/relays";

relayPages.get(
  RELAYS,
  adminRoute("manageFederation", async (c, staff) => {
    const t = staff.lang.t.admin.relays;
    const relays = await listRelays(c.get("rt"));
    const rows = relays.map(
      (r) => html`<tr>
  <td>${r.inbox_url}</td>
  <td>${t.states[r.state]}</td>
  <td>${r.state === "idle" || r.state === "rejected" ? button(staff, `${RELAYS}/${r.id}/enable`, t.enable) : button(staff, `${RELAYS}/${r.id}/disable`, t.disable)}
  ${button(staff, `${RELAYS}/${r.id}/remove`, t.remove)}</td>
</tr>`,
    );
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "relays",
        body: html`<p class="muted">${t.lead}</p>
${
  relays.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.inboxUrl}</th><th>${t.state}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
}
<h2>${t.add}</h2>
<form method="post" action="${RELAYS}">${formToken(staff)}
  <label for="inbox_url">${t.inboxUrl}</label>
  <input id="inbox_url" name="inbox_url" type="url" required maxlength="2048" placeholder="https://relay.example/inbox">
  <div class="actions"><button class="primary" type="submit">${t.add}</button></div>
</form>`,
      }),
    );
  }),
);

relayPages.post(
  RELAYS,
  adminRoute("manageFederation", async (c, staff) => {
    const url = staff.params.inbox_url;
    await addRelay(c.get("rt"), typeof url === "string" ? url : "");
    return saved(c, RELAYS);
  }),
);

const actions = { enable: enableRelay, disable: disableRelay, remove: removeRelay };

for (const [name, action] of Object.entries(actions)) {
  relayPages.post(
    `${RELAYS}/:id/${name}`,
    adminRoute("manageFederation", async (c) => {
      await action(c.get("rt"), c.req.param("id") ?? "");
      return saved(c, RELAYS);
    }),
  );
}

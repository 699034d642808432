// The web admin under /admin: every section's pages, and /admin itself, which opens the first
// section the visitor's role may use (the dashboard, for roles that may view it).
import { can } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import { accountPages } from "./accounts.ts";
import { announcementPages } from "./announcements.ts";
import { auditLogPages } from "./audit_log.ts";
import { blockPages } from "./blocks.ts";
import { customEmojiPages } from "./custom_emojis.ts";
import { dashboardPages } from "./dashboard.ts";
import { domainPages } from "./domains.ts";
import { SECTIONS } from "./frame.ts";
import { adminRoute } from "./guard.ts";
import { instancePages } from "./instances.ts";
import { invitePages } from "./invites.ts";
import { relayPages } from "./relays.ts";
import { reportPages } from "./reports.ts";
import { rolePages } from "./roles.ts";
import { settingsPages } from "./settings.ts";
import { tagPages } from "./tags.ts";
import { trendPages } from "./trends.ts";

export const adminPages = router();

// Any staff role may open the admin; its sections check their own permissions.
adminPages.get(
  "/admin",
  adminRoute("viewDashboard", async (c, staff) => {
    const first = SECTIONS.find((s) => can(staff.user.role, s.permission));
    return c.redirect(first?.path ?? "/admin/reports", 303);
  }),
);

adminPages.route("/", reportPages);
adminPages.route("/", accountPages);
adminPages.route("/", domainPages);
adminPages.route("/", relayPages);
adminPages.route("/", blockPages);
adminPages.route("/", settingsPages);
adminPages.route("/", rolePages);
adminPages.route("/", auditLogPages);
adminPages.route("/", trendPages);
adminPages.route("/", tagPages);
adminPages.route("/", customEmojiPages);
adminPages.route("/", dashboardPages);
adminPages.route("/", instancePages);
adminPages.route("/", announcementPages);
adminPages.route("/", invitePages);

// What the server says about itself: its numbers (users, posts, weekly activity), the domains it
// knows, and whom to contact; and all that the Instance entities show besides configuration.
import { idFloor } from "../../domain/ids.ts";
import { can, OWNER_ID } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { loadAccountView } from "../accounts/views.ts";
import { isoWeek } from "../auth/authenticate.ts";
import { vapidKeys } from "../push/vapid.ts";
import { roleOf } from "../roles/lookup.ts";
import { rules } from "./rules.ts";

const count = (n: unknown) => Number(n ?? 0);

export async function stats(rt: Runtime) {
  const db = rt.db;
  const [users, statuses, domains] = await Promise.all([
    db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("approved", "=", true)
      .executeTakeFirstOrThrow(),
    // Mastodon's sum of the local accounts' counters (local accounts are those of users; the
    // instance actor posts nothing). Counting the statuses themselves, or reading the accounts,
    // read whole tables into SQLite's page cache each time the instance documents were made.
    db
      .selectFrom("account_stats as st")
      .innerJoin("users as u", "u.account_id", "st.account_id")
      .select((eb) => eb.fn.sum("st.statuses_count").as("n"))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("accounts")
      .select((eb) => eb.fn.count("domain").distinct().as("n"))
      .where("domain", "is not", null)
      .executeTakeFirstOrThrow(),
  ]);
  return { users: count(users.n), statuses: count(statuses.n), domains: count(domains.n) };
}

/**
 * Accounts that used the API in the last 30 days. Activity is recorded per ISO week, so this counts
 * the current week and the four before it: about 30 days, never fewer.
 */
export async function activeUsers(rt: Runtime, days: number): Promise<number> {
  const weeks = Array.from({ length: Math.ceil(days / 7) + 1 }, (_, i) =>
    isoWeek(new Date(Date.now() - i * 7 * 86_400_000)),
  );
  const row = await rt.db
    .selectFrom("weekly_activity")
    .select((eb) => eb.fn.count("account_id").distinct().as("n"))
    .where("week", "in", weeks)
    .executeTakeFirstOrThrow();
  return count(row.n);
}

/** Monday 00:00 UTC of the week `weeksAgo` weeks before this one. */
function weekStart(weeksAgo: number): Date {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7) - weeksAgo * 7);
  return d;
}

/** The last 12 weeks, this one first: local posts, distinct active users and sign-ups. */
export async function activity(rt: Runtime) {
  const out = [];
  for (let i = 0; i < 12; i++) {
    const start = weekStart(i);
    const end = new Date(start.getTime() + 7 * 86_400_000);
    const [statuses, logins, registrations] = await Promise.all([
      rt.db
        .selectFrom("statuses")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("local", "=", true)
        .where("id", ">=", idFloor(start))
        .where("id", "<", idFloor(end))
        .executeTakeFirstOrThrow(),
      rt.db
        .selectFrom("weekly_activity")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("week", "=", isoWeek(start))
        .executeTakeFirstOrThrow(),
      rt.db
        .selectFrom("users")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("created_at", ">=", start)
        .where("created_at", "<", end)
        .executeTakeFirstOrThrow(),
    ]);
    out.push({
      week: String(Math.floor(start.getTime() / 1000)),
      statuses: String(count(statuses.n)),
      logins: String(count(logins.n)),
      registrations: String(count(registrations.n)),
    });
  }
  return out;
}

/** Domains of the remote accounts known here, except the ones this server suspends. */
export async function peers(rt: Runtime): Promise<string[]> {
  const rows = await rt.db
    .selectFrom("accounts")
    .select("domain")
    .distinct()
    .where("domain", "is not", null)
    .where("domain", "not in", rt.db.selectFrom("domain_blocks").select("domain").where("severity", "=", "suspend"))
    .orderBy("domain")
    .execute();
  return rows.map((r) => r.domain!);
}

/** The account people may contact: SITE_CONTACT_USERNAME, else the first owner. */
async function contactAccountId(rt: Runtime): Promise<string | null> {
  const name = rt.config.site.contactUsername;
  const q = rt.db
    .selectFrom("accounts as a")
    .innerJoin("users as u", "u.account_id", "a.id")
    .select("a.id")
    .where("a.suspended_at", "is", null);
  const row = name
    ? await q.where("a.acct_key", "=", `${name.toLowerCase()}@`).executeTakeFirst()
    : await q.where("u.role_id", "=", OWNER_ID).orderBy("u.id").executeTakeFirst();
  return row?.id ?? null;
}

/** What the Instance entities (v1 and v2) show besides configuration, loaded together. */
export async function instanceFacts(rt: Runtime) {
  const [numbers, activeMonth, contactId, ruleRows, vapid, everyone] = await Promise.all([
    stats(rt),
    activeUsers(rt, 30),
    contactAccountId(rt),
    rules(rt),
    vapidKeys(rt),
    roleOf(rt, null),
  ]);
  const contact = contactId ? await loadAccountView(rt, contactId) : null;
  return {
    stats: numbers,
    activeMonth,
    contact,
    rules: ruleRows,
    vapidPublicKey: vapid.publicKey,
    // Mastodon's `invites_enabled`: whether every member may make invite links.
    invitesEnabled: can(everyone, "inviteUsers"),
  };
}

export type InstanceFacts = Awaited<ReturnType<typeof instanceFacts>>;

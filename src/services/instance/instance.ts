// What the server says about itself: numbers, rules, texts, and the domains it blocks.
import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import { marked } from "marked";
import sanitizeHtml from "sanitize-html";
import type { DomainBlocksTable, RulesTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { idFloor, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { isoWeek } from "../auth/authenticate.ts";
import { cached, invalidate } from "../cache.ts";

export type Rule = Selectable<RulesTable>;
export type DomainBlock = Selectable<DomainBlocksTable>;

const MINUTE = 60_000;
const PREFIX = "instance:";

/** Instance documents are computed at most once a minute per process, and again after any change here. */
export const instanceCached = <T>(rt: Runtime, key: string, compute: () => Promise<T>) =>
  cached(rt, PREFIX + key, MINUTE, compute);
const changed = (rt: Runtime) => invalidate(rt, PREFIX);

const count = (n: unknown) => Number(n ?? 0);

export async function stats(rt: Runtime) {
  const db = rt.db;
  const [users, statuses, domains] = await Promise.all([
    db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("approved", "=", true)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("statuses")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("local", "=", true)
      .where("deleted_at", "is", null)
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
export async function contactAccountId(rt: Runtime): Promise<string | null> {
  const name = rt.config.site.contactUsername;
  const q = rt.db
    .selectFrom("accounts as a")
    .innerJoin("users as u", "u.account_id", "a.id")
    .select("a.id")
    .where("a.suspended_at", "is", null);
  const row = name
    ? await q.where("a.acct_key", "=", `${name.toLowerCase()}@`).executeTakeFirst()
    : await q.where("u.role", "=", "owner").orderBy("u.id").executeTakeFirst();
  return row?.id ?? null;
}

// Rules.

export async function rules(rt: Runtime): Promise<Rule[]> {
  return rt.db.selectFrom("rules").selectAll().orderBy("priority").orderBy("id").execute();
}

export async function addRule(rt: Runtime, text: string, hint = ""): Promise<Rule> {
  if (!text.trim()) throw unprocessable("Validation failed: Text can't be blank");
  const now = new Date();
  const rule: Rule = {
    id: newId(),
    text: text.trim(),
    hint: hint.trim(),
    priority: 0,
    created_at: now,
    updated_at: now,
  };
  await rt.db.insertInto("rules").values(rule).execute();
  await changed(rt);
  return rule;
}

export async function removeRule(rt: Runtime, id: string): Promise<void> {
  const result = await rt.db.deleteFrom("rules").where("id", "=", id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
  await changed(rt);
}

// Instance-wide domain blocks.

export type Severity = DomainBlock["severity"];

export async function domainBlocks(rt: Runtime): Promise<DomainBlock[]> {
  return rt.db.selectFrom("domain_blocks").selectAll().orderBy("domain").execute();
}

export async function blockDomain(
  rt: Runtime,
  input: {
    domain: string;
    severity: Severity;
    rejectMedia?: boolean;
    publicComment?: string | null;
    obfuscate?: boolean;
  },
): Promise<void> {
  const domain = input.domain
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/\/.*$/, "");
  if (!/^[a-z0-9.-]+\.[a-z0-9-]+(:\d+)?$/.test(domain))
    throw unprocessable("Validation failed: Domain is not a valid domain name");
  const now = new Date();
  const values = {
    severity: input.severity,
    reject_media: input.rejectMedia ?? false,
    obfuscate: input.obfuscate ?? false,
    public_comment: input.publicComment ?? null,
    updated_at: now,
  };
  await rt.db
    .insertInto("domain_blocks")
    .values({ id: newId(), domain, private_comment: null, created_at: now, ...values })
    .onConflict((oc) => oc.column("domain").doUpdateSet(values))
    .execute();
  await changed(rt);
}

export async function unblockDomain(rt: Runtime, domain: string): Promise<void> {
  const result = await rt.db
    .deleteFrom("domain_blocks")
    .where("domain", "=", domain.trim().toLowerCase())
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
  await changed(rt);
}

export function domainDigest(domain: string): string {
  return createHash("sha256").update(domain).digest("hex");
}

/** Mastodon's obfuscation: the middle of the name starred, dots kept. */
export function obfuscateDomain(domain: string): string {
  const visible = Math.floor(domain.length / 4);
  return [...domain].map((c, i) => (i > visible && i < domain.length - visible && c !== "." ? "*" : c)).join("");
}

// Texts: about page, privacy policy, terms of service. Written in Markdown, served as safe HTML.

export type TextKey = "extended_description" | "privacy_policy";

export interface SiteText {
  text: string;
  updated_at: string;
}

export interface TermsVersion {
  text: string;
  effective_date: string;
  published_at: string;
}

export function markdownToHtml(text: string): string {
  return sanitizeHtml(marked.parse(text, { async: false }), {
    allowedTags: sanitizeHtml.defaults.allowedTags.concat(["h1", "h2"]),
    allowedAttributes: { a: ["href", "rel", "target"] },
  }).trim();
}

export async function siteText(rt: Runtime, key: TextKey): Promise<SiteText | null> {
  const row = await rt.db.selectFrom("site_settings").select("value").where("key", "=", key).executeTakeFirst();
  return (row?.value as SiteText | undefined) ?? null;
}

async function writeSetting(rt: Runtime, key: string, value: unknown): Promise<void> {
  const now = new Date();
  await rt.db
    .insertInto("site_settings")
    .values({ key, value: JSON.stringify(value), updated_at: now })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: JSON.stringify(value), updated_at: now }))
    .execute();
  await changed(rt);
}

export async function setSiteText(rt: Runtime, key: TextKey, text: string): Promise<void> {
  await writeSetting(rt, key, { text, updated_at: new Date().toISOString() } satisfies SiteText);
}

export async function termsVersions(rt: Runtime): Promise<TermsVersion[]> {
  const row = await rt.db
    .selectFrom("site_settings")
    .select("value")
    .where("key", "=", "terms_of_service")
    .executeTakeFirst();
  return ((row?.value as TermsVersion[] | undefined) ?? []).sort((a, b) =>
    a.effective_date.localeCompare(b.effective_date),
  );
}

/** Publishes terms that take effect on `effectiveDate` (YYYY-MM-DD), replacing a version of that date. */
export async function publishTerms(rt: Runtime, text: string, effectiveDate: string): Promise<void> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(effectiveDate) || Number.isNaN(Date.parse(effectiveDate))) {
    throw unprocessable("Validation failed: Effective date must be a date (YYYY-MM-DD)");
  }
  const versions = (await termsVersions(rt)).filter((v) => v.effective_date !== effectiveDate);
  versions.push({ text, effective_date: effectiveDate, published_at: new Date().toISOString() });
  await writeSetting(rt, "terms_of_service", versions);
}

// Rookery's own policy, shown until the operator publishes theirs.
const DEFAULT_PRIVACY_POLICY = `This server keeps what you give it to run your account: your email address and
password (stored hashed), your posts and profile, and the accounts you follow, block or mute.
Posts are shared with the servers of the people allowed to see them. Your email address is used
only to confirm your account. You can delete your posts at any time. Ask the people running this
server to see or delete your data.`;
const DEFAULT_POLICY_DATE = "2026-11-01T00:00:00.000Z";

export async function privacyPolicy(rt: Runtime): Promise<{ updated_at: string; content: string }> {
  const text = await siteText(rt, "privacy_policy");
  return {
    updated_at: text?.updated_at ?? DEFAULT_POLICY_DATE,
    content: markdownToHtml(text?.text ?? DEFAULT_PRIVACY_POLICY),
  };
}

/** The terms in effect today, or the first ones to come when none are in effect yet. */
export function currentTerms(versions: TermsVersion[]): TermsVersion | null {
  const today = new Date().toISOString().slice(0, 10);
  return versions.filter((v) => v.effective_date <= today).at(-1) ?? versions[0] ?? null;
}

// The server's texts: about page, privacy policy, terms of service. Written in Markdown, kept in
// site_settings, served as safe HTML.

import { unprocessable } from "../../domain/errors.ts";
import { markdownToHtml } from "../../domain/text/markdown.ts";
import type { Runtime } from "../../runtime.ts";
import { type AuditRecord, logAction } from "../moderation/audit_log.ts";
import { requirePermission, type Staff } from "../moderation/staff.ts";
import { instanceChanged } from "./cached.ts";

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

export async function siteText(rt: Runtime, key: TextKey): Promise<SiteText | null> {
  const row = await rt.db.selectFrom("site_settings").select("value").where("key", "=", key).executeTakeFirst();
  return (row?.value as SiteText | undefined) ?? null;
}

/** Who changed a setting from the web admin, and how the audit log records it (the command line logs nothing). */
export interface SettingChange {
  actor: Staff;
  record: AuditRecord;
}

/** Saves a setting, and its audit log entry when staff made the change. */
async function writeSetting(rt: Runtime, key: string, value: unknown, change?: SettingChange): Promise<void> {
  if (change) requirePermission(change.actor, "manageSettings");
  const now = new Date();
  const json = JSON.stringify(value);
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("site_settings")
      .values({ key, value: json, updated_at: now })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: json, updated_at: now }))
      .execute();
    if (change) await logAction(trx, change.actor, change.record);
  });
  await instanceChanged(rt);
}

export async function setSiteText(rt: Runtime, key: TextKey, text: string, actor?: Staff): Promise<void> {
  const record: AuditRecord = { action: "update", targetType: "Setting", targetId: key, identifier: key };
  await writeSetting(
    rt,
    key,
    { text, updated_at: new Date().toISOString() } satisfies SiteText,
    actor && { actor, record },
  );
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
export async function publishTerms(rt: Runtime, text: string, effectiveDate: string, actor?: Staff): Promise<void> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(effectiveDate) || Number.isNaN(Date.parse(effectiveDate))) {
    throw unprocessable("Validation failed: Effective date must be a date (YYYY-MM-DD)");
  }
  const versions = (await termsVersions(rt)).filter((v) => v.effective_date !== effectiveDate);
  versions.push({ text, effective_date: effectiveDate, published_at: new Date().toISOString() });
  const record: AuditRecord = {
    action: "create",
    targetType: "TermsOfService",
    targetId: effectiveDate,
    identifier: effectiveDate,
  };
  await writeSetting(rt, "terms_of_service", versions, actor && { actor, record });
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

// The server settings operators change while it runs (from the web admin): title, description,
// contact and registrations mode. The environment gives their first values; what an operator saves
// is kept in site_settings and wins over the environment from then on, in every process: each one
// reads it at start and takes every later change from the bus, before the instance caches drop.
import { z } from "zod";
import type { Config, RegistrationsMode } from "../../config.ts";
import { isEmailAddress } from "../../domain/emails.ts";
import { fieldError, validationFailed } from "../../domain/errors.ts";
import { USERNAME_FORMAT } from "../../domain/usernames.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "../moderation/audit_log.ts";
import { requirePermission, type Staff } from "../moderation/staff.ts";
import { instanceChanged } from "./cached.ts";

const KEY = "server";
const CHANNEL = "settings:changed";

export const REGISTRATIONS_MODES: readonly RegistrationsMode[] = ["open", "approved", "none"];

export interface ServerSettings {
  title: string;
  description: string;
  contactEmail: string;
  contactUsername: string | null;
  registrationsMode: RegistrationsMode;
}

const stored = z.object({
  title: z.string(),
  description: z.string(),
  contactEmail: z.string(),
  contactUsername: z.string().nullable(),
  registrationsMode: z.enum(["open", "approved", "none"]),
});

/** The configuration each runtime started with, to lay saved settings over. */
const environment = new WeakMap<Runtime, Config>();

export function serverSettings(rt: Runtime): ServerSettings {
  const { site, registrations } = rt.config;
  return {
    title: site.title,
    description: site.description,
    contactEmail: site.contactEmail,
    contactUsername: site.contactUsername,
    registrationsMode: registrations.mode,
  };
}

function apply(rt: Runtime, settings: ServerSettings): void {
  const base = environment.get(rt) ?? rt.config;
  environment.set(rt, base);
  rt.config = {
    ...base,
    site: {
      ...base.site,
      title: settings.title,
      description: settings.description,
      contactEmail: settings.contactEmail,
      contactUsername: settings.contactUsername,
    },
    registrations: { ...base.registrations, mode: settings.registrationsMode },
  };
}

/** Reads the saved settings into the runtime, and follows later changes made by other processes. */
export async function loadServerSettings(rt: Runtime): Promise<void> {
  rt.bus.subscribe(CHANNEL, (message) => {
    const parsed = stored.safeParse(JSON.parse(message));
    if (parsed.success) apply(rt, parsed.data);
  });
  const row = await rt.db.selectFrom("site_settings").select("value").where("key", "=", KEY).executeTakeFirst();
  const parsed = stored.safeParse(row?.value);
  if (parsed.success) apply(rt, parsed.data);
}

/** Mastodon's names of the settings (Form::AdminSettings), as the audit log names a change. */
const SETTING_NAMES: Record<keyof ServerSettings, string> = {
  title: "site_title",
  description: "site_short_description",
  contactEmail: "site_contact_email",
  contactUsername: "site_contact_username",
  registrationsMode: "registrations_mode",
};

/** Checks and saves new settings, with an audit log entry naming what changed; everything that shows them is told. */
export async function saveServerSettings(rt: Runtime, actor: Staff, input: ServerSettings): Promise<ServerSettings> {
  requirePermission(actor, "manageSettings");
  const settings: ServerSettings = {
    title: input.title.trim(),
    description: input.description.trim(),
    contactEmail: input.contactEmail.trim().toLowerCase(),
    contactUsername: input.contactUsername?.trim().replace(/^@/, "") || null,
    registrationsMode: input.registrationsMode,
  };
  const errors: Parameters<typeof validationFailed>[0] = {};
  if (!settings.title) errors.title = [fieldError.blank];
  else if (settings.title.length > 200) errors.title = [fieldError.tooLong(200)];
  if (settings.description.length > 500) errors.description = [fieldError.tooLong(500)];
  if (settings.contactEmail && !isEmailAddress(settings.contactEmail)) errors.contact_email = [fieldError.invalid()];
  if (settings.contactUsername && !USERNAME_FORMAT.test(settings.contactUsername))
    errors.contact_username = [fieldError.invalid()];
  if (!REGISTRATIONS_MODES.includes(settings.registrationsMode)) errors.registrations_mode = [fieldError.inclusion];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const now = new Date();
  const value = JSON.stringify(settings);
  const before = serverSettings(rt);
  const changed = (Object.keys(SETTING_NAMES) as (keyof ServerSettings)[]).filter((k) => before[k] !== settings[k]);
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("site_settings")
      .values({ key: KEY, value, updated_at: now })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value, updated_at: now }))
      .execute();
    if (changed.length > 0) {
      await logAction(trx, actor, {
        action: "update",
        targetType: "Setting",
        targetId: KEY,
        identifier: changed.map((k) => SETTING_NAMES[k]).join(", "),
      });
    }
  });
  apply(rt, settings);
  await rt.bus.publish(CHANNEL, value);
  await instanceChanged(rt);
  return settings;
}

// A user's settings as their apps read them (/api/v1/preferences). They are written through
// update_credentials (`source[privacy]`, `source[sensitive]`, `source[language]`).
import type { UserSettings } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";

export async function userSettings(rt: Runtime, userId: string): Promise<UserSettings> {
  const row = await rt.db.selectFrom("users").select("settings").where("id", "=", userId).executeTakeFirst();
  return row?.settings ?? {};
}

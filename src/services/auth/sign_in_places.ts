// Where each user signed in from on the web (address and device), to tell them by mail of a sign-in
// from a place not seen before, as Mastodon's "suspicious sign-in" mail does. The first sign-in of
// an account is not news to anyone, and is only remembered.
import type { Db } from "../../db/index.ts";
import type { Runtime } from "../../runtime.ts";
import { queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";

export async function recordSignInPlace(
  rt: Runtime,
  trx: Db,
  userId: string,
  place: { ip: string | null; device: string; at: Date },
): Promise<void> {
  const ip = place.ip ?? "unknown";
  const known = await trx.selectFrom("sign_in_places").select(["ip", "device"]).where("user_id", "=", userId).execute();
  const seen = known.some((k) => k.ip === ip && k.device === place.device);
  await trx
    .insertInto("sign_in_places")
    .values({ user_id: userId, ip, device: place.device, first_seen_at: place.at, last_seen_at: place.at })
    .onConflict((oc) => oc.columns(["user_id", "ip", "device"]).doUpdateSet({ last_seen_at: place.at }))
    .execute();
  if (seen || known.length === 0) return;
  const user = await trx
    .selectFrom("users")
    .select(["email", "locale"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const t = mailTexts(user.locale).newSignIn;
  const site = rt.config.site.title;
  await queueMail(rt, trx, {
    to: user.email,
    subject: t.subject(site),
    text: t.text(site, `${place.at.toISOString().slice(0, 16).replace("T", " ")} UTC`, ip, place.device),
  });
}

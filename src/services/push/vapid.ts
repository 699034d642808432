// The server's VAPID key pair (Web Push), made once and kept in site_settings. Apps read the public
// key from POST /api/v1/apps and /api/v2/instance.
import { lazy } from "../../lazy.ts";
import type { Runtime } from "../../runtime.ts";

const webPush = lazy<typeof import("web-push")>("web-push");

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const KEY = "vapid_keys";
const cache = new WeakMap<Runtime, Promise<VapidKeys>>();

export function vapidKeys(rt: Runtime): Promise<VapidKeys> {
  let keys = cache.get(rt);
  if (!keys) {
    keys = loadOrCreate(rt);
    keys.catch(() => cache.delete(rt));
    cache.set(rt, keys);
  }
  return keys;
}

async function loadOrCreate(rt: Runtime): Promise<VapidKeys> {
  const read = () => rt.db.selectFrom("site_settings").select("value").where("key", "=", KEY).executeTakeFirst();
  const existing = await read();
  if (existing) return existing.value as VapidKeys;
  const generated = webPush().generateVAPIDKeys();
  // Another process may have made its pair first: theirs wins, and both read the same one.
  await rt.db
    .insertInto("site_settings")
    .values({ key: KEY, value: JSON.stringify(generated), updated_at: new Date() })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  return (await read())!.value as VapidKeys;
}

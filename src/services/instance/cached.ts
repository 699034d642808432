// The instance documents (Instance entities, peers, activity, rules…) are computed at most once a
// minute per process, and again everywhere after any change to what they show.
import type { Runtime } from "../../runtime.ts";
import { cached, invalidate } from "../cache.ts";

const MINUTE = 60_000;
const PREFIX = "instance:";

export const instanceCached = <T>(rt: Runtime, key: string, compute: () => Promise<T>) =>
  cached(rt, PREFIX + key, MINUTE, compute);

export const instanceChanged = (rt: Runtime) => invalidate(rt, PREFIX);

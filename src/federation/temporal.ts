// Node 24 has no Temporal yet; Fedify runs on the polyfill it depends on, and declares its types
// with TypeScript's own Temporal (lib esnext.temporal). The polyfill, typed as those.
//
// package.json installs temporal-polyfill under the name Fedify imports (`@js-temporal/polyfill`),
// for Fedify and for Rookery, so that there is one Temporal: Fedify accepts it as it does any
// conforming one, and it reads and compares instants about three times as fast as
// @js-temporal/polyfill, whose arithmetic on JSBI big integers took about 0.3 ms of every inbox
// activity (the Date header's window, the `published` of a post, cache expiries).
import { Temporal as Polyfill } from "@js-temporal/polyfill";

export const Temporal = Polyfill as unknown as typeof globalThis.Temporal;

export const instant = (date: Date) => Temporal.Instant.fromEpochMilliseconds(date.getTime());

// Node 24 has no Temporal yet; Fedify runs on the polyfill it depends on, and declares its types
// with TypeScript's own Temporal (lib esnext.temporal). The polyfill, typed as those.
import { Temporal as Polyfill } from "@js-temporal/polyfill";

export const Temporal = Polyfill as unknown as typeof globalThis.Temporal;

export const instant = (date: Date) => Temporal.Instant.fromEpochMilliseconds(date.getTime());

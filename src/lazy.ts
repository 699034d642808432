// Libraries that only some configurations or rare requests use (Redis, SMTP, image processing,
// Web Push) are loaded on first use rather than at start: each costs every web thread 10–20 MB
// that a small server would otherwise hold for nothing.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The module `name`, loaded the first time the returned function is called. */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}

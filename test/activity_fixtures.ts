// Activities written the way Mastodon, GoToSocial, Misskey and Pleroma/Akkoma write them
// (test/fixtures/activities/<software>/<name>.json), with `{{placeholder}}`s for what a test decides:
// the sending actor and its server, the local account it talks to, and the local objects it names.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const DIR = join(import.meta.dirname, "fixtures", "activities");

export const PLACEHOLDERS = [
  /** The sending actor's id, its profile page, its username and its public key (PEM). */
  "actor",
  "actor_url",
  "actor_username",
  "actor_public_key_pem",
  /** The sending server: `https://host` and `host`. */
  "origin",
  "host",
  /** The local account addressed: its actor id, profile page, username and `@user@domain`. */
  "target",
  "target_url",
  "target_username",
  "target_acct",
  /** A local status, a local poll and one of its options' titles, the id of a Follow we sent. */
  "target_status",
  "target_poll",
  "target_poll_option",
  "our_follow",
  /** The account a Move's actor moves to (which lists the actor in its alsoKnownAs, or not). */
  "move_target",
] as const;

export type Placeholder = (typeof PLACEHOLDERS)[number];

/** Every fixture as `software/name`, sorted. */
export function activityFixtureNames(): string[] {
  return readdirSync(DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(DIR, d.name))
        .filter((f) => f.endsWith(".json"))
        .map((f) => `${d.name}/${f.slice(0, -5)}`),
    )
    .sort();
}

/** The fixture's text as stored, placeholders in. */
export function activityFixtureText(name: string): string {
  return readFileSync(join(DIR, `${name}.json`), "utf8");
}

/** The fixture with its placeholders filled in (inside strings, so values need no JSON escaping). */
export function loadActivity(name: string, values: Partial<Record<Placeholder, string>>): Record<string, unknown> {
  const fill = (v: unknown): unknown => {
    if (typeof v === "string") {
      return v.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key as Placeholder] ?? whole);
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(JSON.parse(activityFixtureText(name))) as Record<string, unknown>;
}

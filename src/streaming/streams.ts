// The streams a client may subscribe to, and who may: Mastodon's names, parameters, scopes and errors.
import { isId } from "../domain/ids.ts";
import { grants } from "../domain/scopes.ts";
import { normalizeHashtag } from "../domain/text/index.ts";
import type { Runtime } from "../runtime.ts";
import type { PublicQuery } from "../services/feeds/timelines.ts";

export const STREAM_NAMES = [
  "user",
  "user:notification",
  "public",
  "public:media",
  "public:local",
  "public:local:media",
  "public:remote",
  "public:remote:media",
  "hashtag",
  "hashtag:local",
  "list",
  "direct",
] as const;

export type StreamName = (typeof STREAM_NAMES)[number];

/** Who is listening: the token's account and scopes, or nobody (public streams with public preview). */
export interface Viewer {
  accountId: string;
  scopes: string[];
}

/** A stream resolved for one viewer: what it follows, and the name its events carry. */
export type Stream =
  | { kind: "feed"; name: "user" | "list"; label: string[]; feedId: string; notifications: boolean }
  | { kind: "account"; name: "user:notification" | "direct"; label: string[] }
  | { kind: "public"; name: StreamName; label: string[]; query: PublicQuery; tag: string | null };

/** A refusal, as Mastodon's streaming server words it. */
export class StreamError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const isStreamName = (name: string): name is StreamName => (STREAM_NAMES as readonly string[]).includes(name);

const can = (viewer: Viewer, ...scopes: string[]) => scopes.some((s) => grants(viewer.scopes, s));

/** Resolves `name` (with its `tag` or `list`) for `viewer`, or throws a StreamError. */
export async function resolveStream(
  rt: Runtime,
  viewer: Viewer | null,
  name: string,
  params: { tag?: string | null; list?: string | null },
): Promise<Stream> {
  if (!isStreamName(name)) throw new StreamError(400, "Unknown stream type");
  const isPublic = name.startsWith("public") || name.startsWith("hashtag");
  if (!viewer) {
    if (!isPublic || !rt.config.publicPreview) throw new StreamError(401, "Missing access token");
  } else {
    const needs = name === "user:notification" ? "read:notifications" : "read:statuses";
    if (!can(viewer, "read", needs)) throw new StreamError(401, "Access token does not have the required scopes");
  }
  if (isPublic) {
    const tag = name.startsWith("hashtag") ? normalizeHashtag(params.tag ?? "") : null;
    if (tag === "") throw new StreamError(400, "No tag for stream provided");
    const query = {
      local: name.includes(":local"),
      remote: name.includes(":remote"),
      onlyMedia: name.endsWith(":media"),
    };
    return { kind: "public", name, label: tag ? [name, params.tag!] : [name], query, tag };
  }
  const accountId = viewer!.accountId;
  if (name === "user") {
    const notifications = can(viewer!, "read", "read:notifications");
    return { kind: "feed", name, label: [name], feedId: accountId, notifications };
  }
  if (name === "list") {
    const listId = params.list ?? "";
    const owned =
      isId(listId) &&
      (await rt.db
        .selectFrom("lists")
        .select("id")
        .where("id", "=", listId)
        .where("account_id", "=", accountId)
        .executeTakeFirst());
    if (!owned) throw new StreamError(401, "Not authorized to stream this list");
    return { kind: "feed", name, label: [name, listId], feedId: listId, notifications: false };
  }
  return { kind: "account", name: name as "user:notification" | "direct", label: [name] };
}

/** The stream an SSE path names (`/api/v1/streaming/public/local` → `public:local`), or null. */
export function streamOfPath(rest: string, onlyMedia: boolean): StreamName | null {
  const name = rest.replace(/^\/+|\/+$/g, "").replaceAll("/", ":");
  const withMedia = onlyMedia && name.startsWith("public") && !name.endsWith(":media") ? `${name}:media` : name;
  return isStreamName(withMedia) ? withMedia : null;
}

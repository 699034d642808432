// A local account as an ActivityPub actor, as Mastodon's ActivityPub::ActorSerializer shows it:
// Person (Service for bots), its endpoints and collections, both public keys, profile fields as
// PropertyValue, the custom emojis its name, bio and fields use, avatar and header, the
// discovery flags, and its other accounts (`alsoKnownAs`) and the one it moved to (`movedTo`). The instance actor is an Application
// that signs the server's own fetches.
import type { Context } from "@fedify/fedify";
import { Application, Endpoints, Image, Person, PropertyValue, Service } from "@fedify/fedify/vocab";
import { mediaStorage } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";
import { type AccountRow, profileTexts } from "../services/accounts/views.ts";
import { emojisIn, localEmojis } from "../services/emojis/custom_emojis.ts";
import { localEmojiTags } from "./emojis.ts";
import { instant } from "./temporal.ts";

/** The instance actor's identifier in actor URLs: not a possible username (usernames have no dot). */
export const INSTANCE_ACTOR = "instance.actor";

function image(url: string | null, mediaType: string | null): Image | null {
  return url ? new Image({ url: new URL(url), mediaType }) : null;
}

function mediaTypeOf(path: string | null): string | null {
  const ext = path?.split(".").pop()?.toLowerCase();
  return ext
    ? ({ png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" }[ext] ?? null)
    : null;
}

export async function localActor(rt: Runtime, ctx: Context<Runtime>, row: AccountRow): Promise<Person | Service> {
  const id = row.username;
  const keys = await ctx.getActorKeyPairs(id);
  const storage = mediaStorage(rt.config);
  const avatar = row.avatar_file ? storage.url(row.avatar_file) : null;
  const header = row.header_file ? storage.url(row.header_file) : null;
  const movedTo = row.moved_to_account_id
    ? await rt.db.selectFrom("accounts").select("uri").where("id", "=", row.moved_to_account_id).executeTakeFirst()
    : undefined;
  const values = {
    id: ctx.getActorUri(id),
    preferredUsername: row.username,
    name: row.display_name,
    summary: row.note_html || null,
    url: new URL(row.url ?? row.uri),
    published: instant(row.created_at),
    inbox: ctx.getInboxUri(id),
    outbox: ctx.getOutboxUri(id),
    followers: ctx.getFollowersUri(id),
    following: ctx.getFollowingUri(id),
    featured: ctx.getFeaturedUri(id),
    featuredTags: ctx.getFeaturedTagsUri(id),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    manuallyApprovesFollowers: row.locked,
    discoverable: row.discoverable ?? false,
    indexable: row.indexable,
    memorial: false,
    attachments: row.fields.map((f) => new PropertyValue({ name: f.name, value: f.value_html })),
    tags: localEmojiTags(rt, emojisIn(await localEmojis(rt), ...profileTexts(row))),
    icon: image(avatar, mediaTypeOf(row.avatar_file)),
    image: image(header, mediaTypeOf(row.header_file)),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((k) => k.multikey),
    aliases: row.also_known_as.map((uri) => new URL(uri)),
    successor: movedTo ? new URL(movedTo.uri) : null,
  };
  return row.actor_type === "Service" ? new Service(values) : new Person(values);
}

export async function instanceActor(rt: Runtime, ctx: Context<Runtime>): Promise<Application> {
  const keys = await ctx.getActorKeyPairs(INSTANCE_ACTOR);
  return new Application({
    id: ctx.getActorUri(INSTANCE_ACTOR),
    preferredUsername: rt.config.localDomain,
    name: rt.config.localDomain,
    url: new URL(`${rt.config.origin}/about`),
    inbox: ctx.getInboxUri(INSTANCE_ACTOR),
    outbox: ctx.getOutboxUri(INSTANCE_ACTOR),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    manuallyApprovesFollowers: true,
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((k) => k.multikey),
  });
}

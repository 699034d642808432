// Invite links, as Mastodon's invites: a member whose role may invite makes a code with a number of
// uses and an expiry; a sign-up through it is approved at once, and its user remembers the invite
// (so that moderators see who invited whom).
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("invites")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("user_id", "bigint", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("code", "text", (c) => c.notNull().unique())
    .addColumn("max_uses", "integer")
    .addColumn("uses", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("invites_user_id").on("invites").column("user_id").execute();
  await db.schema
    .alterTable("users")
    .addColumn("invite_id", "bigint", (c) => c.references("invites.id").onDelete("set null"))
    .execute();
  await db.schema
    .createIndex("users_invite_id")
    .on("users")
    .column("invite_id")
    .where(sql<boolean>`invite_id is not null`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("users_invite_id").execute();
  await db.schema.alterTable("users").dropColumn("invite_id").execute();
  await db.schema.dropTable("invites").execute();
}

// Staff roles as rows, as Mastodon keeps them (user_roles): the built-in Moderator, Admin and
// Owner with the ids the API already reported, "everyone" (-99) holding the base permissions every
// user has, and the custom roles admins add. A user's role becomes a reference (null: everyone).
// And the sign-up attempts each email-domain block met, by day and address (its `history`).
import { type Kysely, sql } from "kysely";

// Mastodon's permission bits, as they were when this migration was written.
const INVITE_USERS = 1 << 16;
const ALL = (1 << 20) - 1;
const MODERATOR = INVITE_USERS | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 8) | (1 << 9) | (1 << 10); // audit log, dashboard, reports, taxonomies, appeals, users
const ADMIN = ALL & ~(1 << 0) & ~(1 << 1); // all but administrator and devops

const BUILT_IN = [
  { id: "-99", role: "user", name: "", position: -1, permissions: INVITE_USERS, highlighted: false },
  { id: "1", role: "moderator", name: "Moderator", position: 10, permissions: MODERATOR, highlighted: true },
  { id: "2", role: "admin", name: "Admin", position: 100, permissions: ADMIN, highlighted: true },
  { id: "3", role: "owner", name: "Owner", position: 1000, permissions: ALL, highlighted: true },
];

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("roles")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("color", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("permissions", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("highlighted", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  const now = new Date();
  await db
    .insertInto("roles")
    .values(BUILT_IN.map(({ role: _, ...r }) => ({ ...r, color: "", created_at: now, updated_at: now })))
    .execute();

  await db.schema
    .alterTable("users")
    .addColumn("role_id", "bigint", (c) => c.references("roles.id").onDelete("set null"))
    .execute();
  for (const r of BUILT_IN.filter((b) => b.role !== "user")) {
    await db.updateTable("users").set({ role_id: r.id }).where("role", "=", r.role).execute();
  }
  await db.schema.alterTable("users").dropColumn("role").execute();
  await db.schema
    .createIndex("users_role_id")
    .on("users")
    .column("role_id")
    .where(sql<boolean>`role_id is not null`)
    .execute();

  await db.schema
    .createTable("email_domain_block_attempts")
    .addColumn("block_id", "bigint", (c) => c.notNull().references("email_domain_blocks.id").onDelete("cascade"))
    // Days since the epoch (UTC).
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("ip", "text", (c) => c.notNull())
    .addColumn("uses", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("email_domain_block_attempts_pkey", ["block_id", "day", "ip"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("email_domain_block_attempts").execute();
  await db.schema
    .alterTable("users")
    .addColumn("role", "text", (c) => c.notNull().defaultTo("user"))
    .execute();
  for (const r of BUILT_IN.filter((b) => b.role !== "user")) {
    await db.updateTable("users").set({ role: r.role }).where("role_id", "=", r.id).execute();
  }
  await db.schema.dropIndex("users_role_id").execute();
  await db.schema.alterTable("users").dropColumn("role_id").execute();
  await db.schema.dropTable("roles").execute();
}

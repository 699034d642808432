// What people do to their own accounts on the web pages: reset a forgotten password (a single-use
// link, only its hash kept), change the email address (the new one waits in unconfirmed_email until
// its link is followed), and two-factor sign-in (a sealed TOTP secret and the last time step used, so
// that a code is not accepted twice; the recovery codes as keyed hashes, a row each, so that deleting
// one is what uses it). And the places (address and device)
// each user signed in from, to tell them of a sign-in from a new one.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite adds no more at a time.
  for (const [name, type] of COLUMNS) {
    await db.schema
      .alterTable("users")
      .addColumn(name, type, (c) => (name === "otp_enabled" ? c.notNull().defaultTo(false) : c))
      .execute();
  }
  await db.schema
    .createIndex("users_reset_password_token_hash")
    .on("users")
    .column("reset_password_token_hash")
    .execute();

  await db.schema
    .createTable("sign_in_places")
    .addColumn("user_id", "bigint", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("ip", "text", (c) => c.notNull())
    // The browser and system the user agent names (src/domain/devices.ts), not the whole header.
    .addColumn("device", "text", (c) => c.notNull())
    .addColumn("first_seen_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_seen_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("sign_in_places_pkey", ["user_id", "ip", "device"])
    .execute();

  await db.schema
    .createTable("otp_recovery_codes")
    .addColumn("user_id", "bigint", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("otp_recovery_codes_pkey", ["user_id", "code_hash"])
    .execute();
}

const COLUMNS = [
  ["reset_password_token_hash", "text"],
  ["reset_password_sent_at", "timestamptz"],
  ["unconfirmed_email", "text"],
  ["otp_secret", "text"],
  ["otp_enabled", "boolean"],
  ["otp_last_step", "integer"],
] as const;

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("otp_recovery_codes").execute();
  await db.schema.dropTable("sign_in_places").execute();
  await db.schema.dropIndex("users_reset_password_token_hash").execute();
  for (const [name] of COLUMNS) await db.schema.alterTable("users").dropColumn(name).execute();
}

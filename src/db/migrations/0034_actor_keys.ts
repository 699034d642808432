// The key pairs local actors sign with: RSA for HTTP signatures (what every server checks) and
// Ed25519 for object integrity proofs. Made the first time an actor needs them, kept as JWK text.
// `owner` is a local account's id, or "instance" for the server's own actor.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("actor_keys")
    .addColumn("owner", "text", (c) => c.primaryKey())
    .addColumn("rsa_public", "text", (c) => c.notNull())
    .addColumn("rsa_private", "text", (c) => c.notNull())
    .addColumn("ed25519_public", "text", (c) => c.notNull())
    .addColumn("ed25519_private", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("actor_keys").execute();
}

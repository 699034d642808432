// The token an authorization code was exchanged for, so that a second use of the code can revoke
// it (RFC 6749 §4.1.2: a code used twice may have been stolen).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("oauth_access_grants")
    .addColumn("access_token_id", "bigint", (c) => c.references("oauth_access_tokens.id").onDelete("set null"))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("oauth_access_grants").dropColumn("access_token_id").execute();
}

// On PostgreSQL, the NOTIFY that wakes workers names the schema whose jobs table got jobs: NOTIFY
// reaches every listener of the database, and Rookeries that share a database in schemas of their
// own (as the tests do) would otherwise wake each other on every insert.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
    create or replace function jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('rookery_jobs', current_schema());
      return null;
    end $$`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
    create or replace function jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('rookery_jobs', '');
      return null;
    end $$`.execute(db);
}

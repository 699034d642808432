// On PostgreSQL, adding jobs wakes the workers of every process through NOTIFY. A trigger sends it
// with the insert, where the queue sent it as a statement of its own: one round trip less for every
// change that adds a job, posting a status among them. Like every NOTIFY, it is delivered when the
// transaction commits, and once however many jobs the transaction adds.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  // The channel the queue listens on (src/jobs/queue.ts).
  await sql`
    create function jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('rookery_jobs', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger jobs_notify after insert on jobs for each statement execute function jobs_notify()`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`drop trigger jobs_notify on jobs`.execute(db);
  await sql`drop function jobs_notify()`.execute(db);
}

// Commits that do not wait for PostgreSQL's log to reach the disk (`synchronous_commit = off`), for
// the work of a job: a job's row is deleted after its work commits, so a crash that loses the last
// commits (at most three times `wal_writer_delay`, 600 ms by default; never a half-written
// transaction) loses the deletion with them, since the log is lost from a point on, and the job
// runs again; jobs are idempotent. What answers a request (an accepted inbox activity, a post)
// keeps waiting for the disk. SQLite runs with `synchronous = NORMAL` in WAL mode already.
//
// A job's work may also leave a write for the round trip that deletes the job (`writeAtJobEnd`):
// it then costs no round trip of its own, and commits with the job's end or not at all.
import { AsyncLocalStorage } from "node:async_hooks";

/** Within a job: the statements left for its end. */
const relaxed = new AsyncLocalStorage<string[]>();

/** Runs `work` with the transactions it begins committing without waiting for the disk; `atEnd` collects what it leaves for the job's end. */
export function withRelaxedCommits<T>(work: () => Promise<T>, atEnd: string[] = []): Promise<T> {
  return relaxed.run(atEnd, work);
}

/** The statement that begins a transaction: relaxed within withRelaxedCommits, in the same round trip. */
export function beginStatement(text: string): string {
  return text === "begin" && relaxed.getStore() ? "begin; set local synchronous_commit = off" : text;
}

/**
 * Leaves a write (one statement, its values written in it, made only when it is left) for the
 * round trip that ends the job under way: true within a job on PostgreSQL. Elsewhere false, and the
 * caller writes it itself. Nothing in the job may read it back before then.
 */
export function writeAtJobEnd(statement: () => string): boolean {
  const atEnd = relaxed.getStore();
  if (!atEnd) return false;
  atEnd.push(statement());
  return true;
}

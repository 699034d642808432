// Commits that do not wait for PostgreSQL's log to reach the disk (`synchronous_commit = off`), for
// the work of a job: a job's row is deleted after its work commits, so a crash that loses the last
// commits (at most three times `wal_writer_delay`, 600 ms by default; never a half-written
// transaction) loses the deletion with them, since the log is lost from a point on, and the job
// runs again; jobs are idempotent. What answers a request (an accepted inbox activity, a post)
// keeps waiting for the disk. SQLite runs with `synchronous = NORMAL` in WAL mode already.
import { AsyncLocalStorage } from "node:async_hooks";

/** Set within a job. */
const relaxed = new AsyncLocalStorage<true>();

/** Runs `work` with the transactions it begins committing without waiting for the disk. */
export function withRelaxedCommits<T>(work: () => Promise<T>): Promise<T> {
  return relaxed.run(true, work);
}

/** The statement that begins a transaction: relaxed within withRelaxedCommits, in the same round trip. */
export function beginStatement(text: string): string {
  return text === "begin" && relaxed.getStore() ? "begin; set local synchronous_commit = off" : text;
}

// The durable job queue: side effects (fan-out, delivery, notifications, scheduled posts) are rows in
// the `jobs` table, written in the same transaction as the change that causes them. Workers claim due
// jobs with a lease, retry failures with exponential backoff, and pick up expired leases after a crash.
// On PostgreSQL, claims use FOR UPDATE SKIP LOCKED and NOTIFY wakes workers in every process.
import pg from "pg";
import type { Db, Dialect } from "../db/index.ts";
import { newId } from "../domain/ids.ts";
import { logger } from "../log.ts";
import type { Bus } from "../streaming/bus.ts";

/** Payload types by job type. Each area adds its own with `declare module`. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface JobPayloads {}
export type JobType = keyof JobPayloads;

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
}

export type Dispatch = (type: string, payload: unknown) => Promise<void>;

const log = logger("jobs");
const LEASE_MS = 5 * 60_000;
const MAX_BACKOFF_MS = 6 * 3600_000;
/** The channel migration 0019's trigger notifies when jobs are added. */
const CHANNEL = "rookery_jobs";
/** On SQLite, the bus channel on which threads that add jobs wake the one that runs them. */
const WAKE = "jobs:wake";

function backoffMs(attempts: number): number {
  const base = Math.min(1000 * 2 ** (attempts - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 + Math.random() * 0.25));
}

/** Jobs one process works at a time. */
export const JOB_CONCURRENCY = 4;

export class Queue {
  readonly #db: Db;
  readonly #dialect: Dialect;
  readonly #databaseUrl: string;
  readonly #bus: Bus;
  #unsubscribe: (() => void) | null = null;
  #dispatch: Dispatch | null = null;
  #concurrency = JOB_CONCURRENCY;
  #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;
  #pumping = false;
  #listener: pg.Client | null = null;
  #idleWaiters: (() => void)[] = [];

  constructor(db: Db, dialect: Dialect, databaseUrl: string, bus: Bus) {
    this.#db = db;
    this.#dialect = dialect;
    this.#databaseUrl = databaseUrl;
    this.#bus = bus;
  }

  /**
   * Adds a job. Pass the transaction the change runs in, so the job exists exactly when the change does.
   */
  async enqueue<T extends JobType>(
    type: T,
    payload: JobPayloads[T],
    options: EnqueueOptions = {},
    db: Db = this.#db,
  ): Promise<string> {
    const id = newId();
    const now = new Date();
    await db
      .insertInto("jobs")
      .values({
        id,
        type,
        payload: JSON.stringify(payload),
        run_at: options.runAt ?? now,
        max_attempts: options.maxAttempts ?? 8,
        locked_until: null,
        last_error: null,
        failed_at: null,
        created_at: now,
      })
      .execute();
    // On PostgreSQL, the insert's trigger notifies every listening process (migration 0019).
    if (this.#dialect === "sqlite") {
      // A claim issued now, here or in another thread, waits for the enclosing transaction to commit:
      // that transaction holds SQLite's write lock from its start.
      this.wake();
      void this.#bus.publish(WAKE, "");
    }
    return id;
  }

  /** Starts working jobs in this process. */
  async start(dispatch: Dispatch, concurrency = JOB_CONCURRENCY): Promise<void> {
    this.#dispatch = dispatch;
    this.#concurrency = concurrency;
    this.#stopped = false;
    if (this.#dialect === "postgres") {
      const client = new pg.Client({ connectionString: this.#databaseUrl });
      client.on("error", (error) => log.warn("Queue listener: {error}", { error: String(error) }));
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      client.on("notification", () => this.wake());
      this.#listener = client;
    } else {
      this.#unsubscribe = this.#bus.subscribe(WAKE, () => this.wake());
    }
    this.wake();
  }

  /** Stops claiming, and waits for the jobs under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#timer) clearTimeout(this.#timer);
    await Promise.allSettled(this.#running);
    await this.#listener?.end().catch(() => {});
    this.#listener = null;
  }

  wake(): void {
    if (this.#stopped || this.#pumping) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), 0);
  }

  /** Resolves when no due job is waiting and none is running (tests use it to let side effects land). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.#running.size === 0 && !this.#pumping && !(await this.#hasDue())) return;
      await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    }
  }

  async #hasDue(): Promise<boolean> {
    const row = await this.#db
      .selectFrom("jobs")
      .select("id")
      .where("failed_at", "is", null)
      .where("run_at", "<=", new Date())
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async #pump(): Promise<void> {
    if (this.#stopped || this.#pumping) return;
    this.#pumping = true;
    try {
      while (!this.#stopped && this.#running.size < this.#concurrency) {
        const jobs = await this.#claim(this.#concurrency - this.#running.size);
        if (jobs.length === 0) break;
        for (const job of jobs) {
          const run = this.#run(job).finally(() => {
            this.#running.delete(run);
            this.wake();
            this.#notifyIdle();
          });
          this.#running.add(run);
        }
      }
    } catch (error) {
      log.error("Claiming jobs failed: {error}", { error: String(error) });
    } finally {
      this.#pumping = false;
    }
    if (!this.#stopped) await this.#sleepUntilNextDue();
    this.#notifyIdle();
  }

  #notifyIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  async #sleepUntilNextDue(): Promise<void> {
    const poll = this.#dialect === "postgres" ? 10_000 : 2_000;
    let delay = poll;
    try {
      const next = await this.#db
        .selectFrom("jobs")
        .select((eb) => eb.fn.min("run_at").as("next"))
        .where("failed_at", "is", null)
        .executeTakeFirst();
      const at = next?.next ? new Date(next.next as unknown as string | Date).getTime() : null;
      if (at !== null) delay = Math.min(poll, Math.max(0, at - Date.now()));
    } catch {
      // Keep polling at the normal pace.
    }
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), delay);
    this.#timer.unref();
  }

  async #claim(limit: number) {
    const now = new Date();
    const due = this.#db
      .selectFrom("jobs")
      .select("id")
      .where("failed_at", "is", null)
      .where("run_at", "<=", now)
      .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", now)]))
      .orderBy("run_at")
      .orderBy("id")
      .limit(limit);
    return this.#db
      .updateTable("jobs")
      .set((eb) => ({ locked_until: new Date(now.getTime() + LEASE_MS), attempts: eb("attempts", "+", 1) }))
      .where("id", "in", this.#dialect === "postgres" ? due.forUpdate().skipLocked() : due)
      .returningAll()
      .execute();
  }

  async #run(job: { id: string; type: string; payload: unknown; attempts: number; max_attempts: number }) {
    try {
      await this.#dispatch!(job.type, job.payload);
      await this.#db.deleteFrom("jobs").where("id", "=", job.id).execute();
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      const failed = job.attempts >= job.max_attempts;
      log.warn("Job {type} {id} failed (attempt {attempts}/{max}): {message}", {
        type: job.type,
        id: job.id,
        attempts: job.attempts,
        max: job.max_attempts,
        message: error instanceof Error ? error.message : String(error),
      });
      await this.#db
        .updateTable("jobs")
        .set({
          locked_until: null,
          last_error: message.slice(0, 4000),
          run_at: new Date(Date.now() + backoffMs(job.attempts)),
          failed_at: failed ? new Date() : null,
        })
        .where("id", "=", job.id)
        .execute()
        .catch((e) => log.error("Recording a job failure failed: {error}", { error: String(e) }));
    }
  }
}

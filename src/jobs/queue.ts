// The durable job queue: side effects (fan-out, delivery, notifications, scheduled posts) are rows in
// the `jobs` table, written in the same transaction as the change that causes them. Workers claim due
// jobs with a short lease that names the holder and that a heartbeat extends while the job runs;
// failures retry with exponential backoff. After a crash, a worker that starts on the same host
// releases the dead process's leases at once (that does not count as an attempt); any other lease
// runs out within LEASE_MS. A job may therefore run twice: every handler must be safe to run twice.
// On PostgreSQL, claims use FOR UPDATE SKIP LOCKED and NOTIFY wakes workers in every process; the
// LISTEN connection reconnects with backoff when the database goes away.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "kysely";
import type pg from "pg";
import { applicationName, type Db, type Dialect } from "../db/index.ts";
import { prepared, preparedText } from "../db/prepared.ts";
import { withRelaxedCommits } from "../db/relaxed_commits.ts";
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
  /**
   * Adds nothing when the same job (type and payload) is already waiting: a job that continues its
   * work in a new job (fan-out chunks) then continues it once even when it runs twice.
   */
  unique?: boolean;
}

/** The job being run, for handlers that reschedule themselves. */
export interface JobContext {
  id: string;
  /** Whether a failure of this run gives the job up (its last attempt). */
  lastAttempt?: boolean;
}

export type Dispatch = (type: string, payload: unknown, job: JobContext) => Promise<void>;

export interface StartOptions {
  concurrency?: number;
  /** Runs when the LISTEN connection is back after losing the database (PostgreSQL only). */
  onReconnect?: () => Promise<void>;
}

const log = logger("jobs");
/** A claim's lease; the heartbeat extends it every HEARTBEAT_MS while the job runs. */
export const LEASE_MS = 10_000;
const HEARTBEAT_MS = 3_000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;
const MAX_BACKOFF_MS = 6 * 3600_000;
/** The channel migration 0019's trigger notifies when jobs are added. */
const CHANNEL = "rookery_jobs";
/** On SQLite, the bus channel on which threads that add jobs wake the one that runs them. */
const WAKE = "jobs:wake";

function backoffMs(attempts: number): number {
  const base = Math.min(1000 * 2 ** (attempts - 1), MAX_BACKOFF_MS);
  return Math.round(base * (1 + Math.random() * 0.25));
}

/**
 * The holders of the queues working in this thread: any other holder with this process id is gone.
 * The threads of one server share its main thread's holder, so that none takes another's leases
 * for those of a process that is gone.
 */
const workingHere = new Set<string>();

/** A new job: made for nearly every change, so compiled once. */
const insertJob = prepared(
  (
    db,
    _: null,
    v: { id: string; type: string; payload: string; run_at: Date; max_attempts: number; created_at: Date },
  ) => db.insertInto("jobs").values({ ...v, locked_until: null, locked_by: null, last_error: null, failed_at: null }),
);

/**
 * Up to `limit` due jobs, leased to `holder`; with `except`, not that one (a job being ended by the
 * same statement); none of the types in `skip` (those running as many as they may, see `limit`).
 */
function claimStatement(
  db: Db,
  s: { dialect: Dialect; except: boolean; skip: string[] },
  v: { now: Date; leaseEnd: Date; holder: string; limit: number; except: string },
) {
  let due = db
    .selectFrom("jobs")
    .select("id")
    .where("failed_at", "is", null)
    .where("run_at", "<=", v.now)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", v.now)]))
    .orderBy("run_at")
    .orderBy("id")
    .limit(v.limit);
  if (s.except) due = due.where("id", "<>", v.except);
  // Written in: the types are few and our own, and a list parameter is no constant of a prepared statement.
  if (s.skip.length > 0) due = due.where(sql<boolean>`type not in (${sql.join(s.skip.map((t) => sql.lit(t)))})`);
  return db
    .updateTable("jobs")
    .set((eb) => ({ locked_until: v.leaseEnd, locked_by: v.holder, attempts: eb("attempts", "+", 1) }))
    .where("id", "in", s.dialect === "postgres" ? due.forUpdate().skipLocked() : due)
    .returningAll();
}

/** A job that succeeded, on SQLite (PostgreSQL's end in #finish): once per job, so compiled once. */
const deleteJob = prepared((db, _: null, v: { id: string }) => db.deleteFrom("jobs").where("id", "=", v.id));

// Claims come once per job: compiled once, and with their values written in when they end a job.
const claim = prepared(claimStatement);
const claimText = preparedText(claimStatement);

interface ClaimedJob {
  id: string;
  type: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

const DIGITS = /^\d+$/;

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
  /** The jobs this process runs, by id. */
  #running = new Map<string, Promise<void>>();
  /** The most jobs of some types that run at once, together (see `limit`), and how many of each type do. */
  #limits: { types: string[]; max: number }[] = [];
  #runningOfType = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  /** A pump is to run at the end of this turn of the event loop (wake). */
  #pumpSoon = false;
  #heartbeat: NodeJS.Timeout | null = null;
  #stopped = true;
  #pumping = false;
  #listener: pg.Client | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #onReconnect: (() => Promise<void>) | null = null;
  #idleWaiters: (() => void)[] = [];
  /** Counts wake-ups, so that one arriving while a pump runs is not lost (the pump looks again). */
  #wakes = 0;
  /** PostgreSQL: the schema of this Rookery's tables, when it has one of its own. */
  readonly #schema: string | undefined;
  /** Who holds this process's leases: host, process id, and a nonce that tells restarts apart. */
  readonly holder: string;
  /** Told of every failed run (the metrics count them): the job's type, and whether it is given up. */
  onFailure: ((type: string, dead: boolean) => void) | null = null;

  /** `holder`: that of the server's main thread, for the queue of one of its web threads. */
  constructor(db: Db, dialect: Dialect, databaseUrl: string, bus: Bus, schema?: string, holder?: string) {
    this.#db = db;
    this.#dialect = dialect;
    this.#databaseUrl = databaseUrl;
    this.#bus = bus;
    this.#schema = schema;
    this.holder = holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
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
    const json = JSON.stringify(payload);
    if (options.unique) {
      // Compared as jsonb on PostgreSQL, as text (JSON.stringify's one spelling) on SQLite.
      const waiting = await db
        .selectFrom("jobs")
        .select("id")
        .where("type", "=", type)
        .where(sql.ref("payload"), "=", json)
        .where("failed_at", "is", null)
        .executeTakeFirst();
      if (waiting) return waiting.id;
    }
    await insertJob(db, null, {
      id,
      type,
      payload: json,
      run_at: options.runAt ?? now,
      max_attempts: options.maxAttempts ?? 8,
      created_at: now,
    });
    // On PostgreSQL, the insert's trigger notifies every listening process (migration 0019).
    if (this.#dialect === "sqlite") {
      // A claim issued now, here or in another thread, waits for the enclosing transaction to commit:
      // that transaction holds SQLite's write lock from its start. This thread takes the job when it
      // has a free slot; the others are woken only when it has none (or works no jobs), so that a
      // job does not send every thread to claim it.
      if (!this.#stopped && this.#running.size < this.#concurrency) this.wake();
      else void this.#bus.publish(WAKE, "");
    }
    return id;
  }

  /** Starts working jobs in this process. */
  async start(dispatch: Dispatch, options: StartOptions = {}): Promise<void> {
    this.#dispatch = dispatch;
    this.#concurrency = options.concurrency ?? JOB_CONCURRENCY;
    this.#onReconnect = options.onReconnect ?? null;
    this.#stopped = false;
    workingHere.add(this.holder);
    await this.releaseDeadHolders();
    if (this.#dialect === "postgres") {
      await this.#listen();
    } else {
      this.#unsubscribe = this.#bus.subscribe(WAKE, () => this.wake());
    }
    this.wake();
  }

  /** Whether the LISTEN connection is up (PostgreSQL; always true on SQLite). */
  get listening(): boolean {
    return this.#dialect === "sqlite" || this.#listener !== null;
  }

  async #listen(): Promise<void> {
    const { default: pg } = await import("pg");
    const client = new pg.Client({
      connectionString: this.#databaseUrl,
      application_name: applicationName(this.#schema),
    });
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.#listener === client) this.#listener = null;
      client.end().catch(() => {});
      if (this.#stopped) return;
      log.warn("Queue listener lost: {error}; reconnecting", { error: String(error ?? "connection ended") });
      this.#reconnect(RECONNECT_MIN_MS);
    };
    client.on("error", onLost);
    client.on("end", () => onLost());
    // The payload names the schema that got jobs (migration 0033).
    client.on("notification", (n) => {
      if (!this.#schema || !n.payload || n.payload === this.#schema) this.wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => {});
      throw error;
    }
    this.#listener = client;
  }

  /** Tries to listen again after `delay`, doubling it up to RECONNECT_MAX_MS while that fails. */
  #reconnect(delay: number): void {
    if (this.#reconnectTimer) return;
    this.#reconnectTimer = setTimeout(async () => {
      this.#reconnectTimer = null;
      if (this.#stopped) return;
      try {
        await this.#listen();
      } catch (error) {
        log.info("Queue listener: the database is still away ({error})", { error: String(error) });
        this.#reconnect(Math.min(delay * 2, RECONNECT_MAX_MS));
        return;
      }
      log.info("Queue listener reconnected");
      // Jobs added while nobody listened, and what the database may have lost meanwhile.
      try {
        await this.releaseDeadHolders();
        await this.#onReconnect?.();
      } catch (error) {
        log.warn("After reconnecting: {error}", { error: String(error) });
      }
      this.wake();
    }, delay);
  }

  /**
   * Runs at most `max` jobs of the `types` at once (together) in this process: jobs that wait on
   * other servers (link previews, deliveries, which may take their full deadline) then leave the
   * other slots to the rest.
   */
  limit(types: JobType[], max: number): void {
    this.#limits.push({ types, max });
  }

  #runningOf(types: string[]): number {
    return types.reduce((n, type) => n + (this.#runningOfType.get(type) ?? 0), 0);
  }

  /** The limited types running as many jobs as they may: not to be claimed now. */
  #full(): string[] {
    const full = this.#limits.filter(({ types, max }) => this.#runningOf(types) >= max).flatMap((l) => l.types);
    return [...new Set(full)];
  }

  /** The most jobs one claim may take without going past a limit (a limited type's jobs may be all it finds). */
  #headroom(): number {
    let room = Number.POSITIVE_INFINITY;
    for (const { types, max } of this.#limits) {
      const left = max - this.#runningOf(types);
      if (left > 0) room = Math.min(room, left);
    }
    return room;
  }

  /** Stops claiming, and waits for the jobs under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    // A job that ends may have claimed the next before the stop: wait for those too.
    while (this.#running.size > 0) await Promise.allSettled(this.#running.values());
    this.#stopHeartbeat();
    workingHere.delete(this.holder);
    const listener = this.#listener;
    this.#listener = null;
    await listener?.end().catch(() => {});
  }

  /**
   * Releases the leases of holders known to be dead: processes of this host that no longer exist,
   * and queues of this process that have stopped (or of an earlier process with its id). Their jobs are due at once, and the claim that the
   * crash interrupted does not count as an attempt. Holders on other hosts keep their leases until
   * they run out.
   */
  async releaseDeadHolders(): Promise<void> {
    const holders = await this.#db
      .selectFrom("jobs")
      .select("locked_by")
      .distinct()
      .where("locked_by", "is not", null)
      .where("failed_at", "is", null)
      .execute();
    for (const { locked_by } of holders) {
      if (!locked_by || !this.#knownDead(locked_by)) continue;
      const released = await this.#db
        .updateTable("jobs")
        .set((eb) => ({ locked_by: null, locked_until: null, attempts: eb("attempts", "-", 1) }))
        .where("locked_by", "=", locked_by)
        .executeTakeFirst();
      log.info("Released {count} jobs of {holder}, which is gone", {
        count: Number(released.numUpdatedRows),
        holder: locked_by,
      });
    }
  }

  #knownDead(holder: string): boolean {
    const [host, pidText] = holder.split(":");
    const pid = Number(pidText);
    if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
    if (pid === process.pid) return !workingHere.has(holder);
    try {
      process.kill(pid, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
  }

  /**
   * Pumps once the current turn of the event loop is done, however many wake it meanwhile: by
   * setImmediate, since a timer waits at least 1 ms, which left a freed slot empty that long after
   * every job (draining on SQLite went from 464 to 481 a second on average, in five turns).
   */
  wake(): void {
    this.#wakes++;
    if (this.#stopped || this.#pumping || this.#pumpSoon) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pumpSoon = true;
    setImmediate(() => {
      this.#pumpSoon = false;
      void this.#pump();
    });
  }

  /**
   * Resolves when no due job is waiting and none is running (tests use it to let side effects land).
   * Rejects at once when this process works no jobs and some are due: nothing here would run them.
   */
  async idle(): Promise<void> {
    for (;;) {
      if (this.#stopped) {
        if (await this.#hasWork()) throw new Error("Jobs are due, but this process's queue is not working them");
        return;
      }
      if (this.#running.size === 0 && !this.#pumping && !(await this.#hasWork())) return;
      await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    }
  }

  /**
   * Whether a job is due and free to claim, or claimed by this queue. A job under another's lease
   * does not count. The ones this queue holds do: the pump may claim a job while this query is on
   * its way (on PostgreSQL they run on separate connections), and that job, no longer free, is not
   * in `#running` yet when the query began.
   */
  async #hasWork(): Promise<boolean> {
    const now = new Date();
    const row = await this.#db
      .selectFrom("jobs")
      .select("id")
      .where("failed_at", "is", null)
      .where((eb) =>
        eb.or([
          eb.and([eb("run_at", "<=", now), eb.or([eb("locked_until", "is", null), eb("locked_until", "<", now)])]),
          eb.and([eb("locked_by", "=", this.holder), eb("locked_until", ">=", now)]),
        ]),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async #pump(): Promise<void> {
    if (this.#stopped || this.#pumping) return;
    this.#pumping = true;
    const wakes = this.#wakes;
    try {
      while (!this.#stopped && this.#running.size < this.#concurrency) {
        const jobs = await this.#claim(Math.min(this.#concurrency - this.#running.size, this.#headroom()));
        if (jobs.length === 0) break;
        for (const job of jobs) this.#start(job);
        this.#startHeartbeat();
      }
    } catch (error) {
      log.error("Claiming jobs failed: {error}", { error: String(error) });
    } finally {
      this.#pumping = false;
    }
    // Every slot busy: the job that ends first wakes the pump, and nothing can start before then,
    // so there is no next due time to look up (under load, that query came once per job).
    const full = this.#running.size >= this.#concurrency;
    if (!this.#stopped && !full) await this.#sleepUntilNextDue(wakes, this.#full());
    this.#notifyIdle();
  }

  #start(job: ClaimedJob): void {
    this.#runningOfType.set(job.type, (this.#runningOfType.get(job.type) ?? 0) + 1);
    const run = this.#run(job).finally(() => {
      this.#runningOfType.set(job.type, this.#runningOfType.get(job.type)! - 1);
      this.#running.delete(job.id);
      if (this.#running.size === 0) this.#stopHeartbeat();
      this.wake();
      this.#notifyIdle();
    });
    this.#running.set(job.id, run);
  }

  #notifyIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Extends the leases of the jobs this process runs, while it runs any. */
  #startHeartbeat(): void {
    if (this.#heartbeat || this.#running.size === 0) return;
    this.#heartbeat = setInterval(() => {
      const ids = [...this.#running.keys()];
      if (ids.length === 0) return;
      this.#db
        .updateTable("jobs")
        .set({ locked_until: new Date(Date.now() + LEASE_MS) })
        .where("id", "in", ids)
        .where("locked_by", "=", this.holder)
        .execute()
        .catch((error) => log.warn("Extending leases failed: {error}", { error: String(error) }));
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
  }

  /**
   * Sleeps until the next job is due: the earliest `run_at` of the jobs free to claim, or the end of
   * the earliest lease (a job under lease is not due before its lease ends, so it must not make the
   * worker poll meanwhile). Jobs of the `skip` types wait for a job of theirs to end, which wakes the pump.
   */
  async #sleepUntilNextDue(wakesAtPump: number, skip: string[]): Promise<void> {
    const poll = this.#dialect === "postgres" ? 10_000 : 2_000;
    let delay = poll;
    try {
      const now = new Date();
      const next = await sql<{ free: string | Date | null; leased: string | Date | null }>`
        select min(case when locked_until is null or locked_until <= ${now} then run_at end) as free,
               min(case when locked_until > ${now} then locked_until end) as leased
        from jobs where failed_at is null
        ${skip.length > 0 ? sql`and type not in (${sql.join(skip)})` : sql``}`.execute(this.#db);
      const row = next.rows[0];
      const times = [row?.free, row?.leased].filter((t) => t != null).map((t) => new Date(t as string).getTime());
      if (times.length > 0) delay = Math.min(poll, Math.max(0, Math.min(...times) - Date.now()));
    } catch {
      // Keep polling at the normal pace.
    }
    if (this.#stopped) return;
    // Woken since the pump began: a job may have been added after it last looked.
    if (this.#wakes !== wakesAtPump) delay = 0;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#pump(), delay);
    this.#timer.unref();
  }

  #claim(limit: number): Promise<ClaimedJob[]> {
    return claim(
      this.#db,
      { dialect: this.#dialect, except: false, skip: this.#full() },
      this.#claimValues(limit, "0"),
    );
  }

  #claimValues(limit: number, except: string) {
    const now = new Date();
    return { now, leaseEnd: new Date(now.getTime() + LEASE_MS), holder: this.holder, limit, except };
  }

  /**
   * PostgreSQL: ends a job that succeeded in one round trip, relaxed as its work was (a statement
   * list runs as one transaction): its deletion, and the claim of the next due job to take its slot
   * (a statement saved per job under load). Returns that job.
   */
  async #finish(id: string): Promise<ClaimedJob[]> {
    if (!DIGITS.test(id)) throw new Error(`Job id ${id} is not a number`);
    const statements = ["set local synchronous_commit = off"];
    const next = !this.#stopped && this.#running.size <= this.#concurrency;
    if (next) {
      const claimNext = claimText(
        this.#db,
        { dialect: "postgres", except: true, skip: this.#full() },
        this.#claimValues(1, id),
      );
      statements.push(`with done as (delete from jobs where id = ${id}) ${claimNext}`);
    } else {
      statements.push(`delete from jobs where id = ${id}`);
    }
    const result = await sql.raw<ClaimedJob>(statements.join("; ")).execute(this.#db);
    return next ? result.rows : [];
  }

  #context(job: ClaimedJob): JobContext {
    return { id: job.id, lastAttempt: job.attempts >= job.max_attempts };
  }

  async #run(job: ClaimedJob) {
    try {
      if (this.#dialect === "postgres") {
        await withRelaxedCommits(() => this.#dispatch!(job.type, job.payload, this.#context(job)));
        for (const next of await this.#finish(job.id)) this.#start(next);
      } else {
        await this.#dispatch!(job.type, job.payload, this.#context(job));
        await deleteJob(this.#db, null, { id: job.id });
      }
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      const failed = job.attempts >= job.max_attempts;
      this.onFailure?.(job.type, failed);
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
          locked_by: null,
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

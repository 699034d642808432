// One writer at a time across the threads of a process, waiting without sleeping. SQLite lets one
// connection write at a time, and a connection that finds another writing calls its busy handler,
// which sleeps (1, 2, 5, 10… ms) with the thread's event loop stopped: every request of that thread
// waits too. The threads of a process share one word instead, in which the writer names its thread;
// a writer that finds it taken awaits its turn (Atomics.waitAsync) and its thread goes on answering.
// Kysely's SQLite driver has no hook for this, so its driver is wrapped here.

import { threadId } from "node:worker_threads";
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from "kysely";

/** How long a writer waits its turn before failing as SQLite would ("database is locked", a 503). */
const WAIT_MS = 5000;
/** The words the threads of a process share for one database file: the holder, and how many wait. */
const HOLDER = 0;
const WAITING = 1;
const FREE = 0;

export function newWriteLock(): SharedArrayBuffer {
  return new SharedArrayBuffer(8);
}

/** The holder's value while this thread holds the lock (thread ids start at 0). */
const mine = threadId + 1;

/**
 * This thread's waits for the lock (how many, how long in all, the longest) and its longest hold
 * since the metrics last took them: where writers' time goes when requests slow down.
 */
export interface WriteLockStats {
  waits: number;
  waitedMs: number;
  longestWaitMs: number;
  longestHoldMs: number;
}

const stats: WriteLockStats = { waits: 0, waitedMs: 0, longestWaitMs: 0, longestHoldMs: 0 };
/** When this thread took the lock (0 while it does not hold it). */
let heldSince = 0;

/** The waits counted so far (cumulative) and the longest wait and hold since the last call. */
export function takeWriteLockStats(): WriteLockStats {
  const taken = { ...stats };
  stats.longestWaitMs = 0;
  stats.longestHoldMs = 0;
  return taken;
}

function held(waitedSince: number, waited: boolean): void {
  heldSince = performance.now();
  if (!waited) return;
  const ms = heldSince - waitedSince;
  stats.waits++;
  stats.waitedMs += ms;
  if (ms > stats.longestWaitMs) stats.longestWaitMs = ms;
}

/** Waits, without blocking the thread, until this thread holds the lock. */
export async function lockWrites(lock: Int32Array): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  const since = performance.now();
  for (let waited = false; ; waited = true) {
    const holder = Atomics.compareExchange(lock, HOLDER, FREE, mine);
    if (holder === FREE) return held(since, waited);
    const left = deadline - Date.now();
    if (left <= 0)
      throw Object.assign(new Error("database is locked (waited for another thread's write)"), { errcode: 5 });
    // Counted before waiting, so that a holder letting go after this sees a waiter to wake.
    Atomics.add(lock, WAITING, 1);
    const wait = Atomics.waitAsync(lock, HOLDER, holder, left);
    if (wait.async) await wait.value;
    Atomics.sub(lock, WAITING, 1);
  }
}

/**
 * The checkpoint thread's figures (sqlite_checkpoints.ts), in a Float64Array it shares with its
 * connection's thread: each total follows its count; the longest are since the metrics last read them.
 */
export const CheckpointStat = {
  Passives: 0,
  PassiveMs: 1,
  LongestPassiveMs: 2,
  Restarts: 3,
  /** Writers are kept out meanwhile. */
  RestartMs: 4,
  LongestRestartMs: 5,
  /** Waiting for the writer of the moment before a restart. */
  LongestRestartWaitMs: 6,
  /** The log's length, in pages, at the last checkpoint. */
  LogPages: 7,
} as const;
export type CheckpointStat = (typeof CheckpointStat)[keyof typeof CheckpointStat];

/** Waits, blocking this thread (one with nothing else to do), until it holds the lock. */
export function lockWritesSync(lock: Int32Array): boolean {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const holder = Atomics.compareExchange(lock, HOLDER, FREE, mine);
    if (holder === FREE) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    Atomics.add(lock, WAITING, 1);
    Atomics.wait(lock, HOLDER, holder, left);
    Atomics.sub(lock, WAITING, 1);
  }
}

/** Lets go of the lock, waking a waiter if there is one (a wake is a system call; most writes have no waiter). */
export function unlockWrites(lock: Int32Array): void {
  if (Atomics.compareExchange(lock, HOLDER, mine, FREE) === mine && heldSince > 0) {
    const ms = performance.now() - heldSince;
    if (ms > stats.longestHoldMs) stats.longestHoldMs = ms;
    heldSince = 0;
  }
  if (Atomics.load(lock, WAITING) > 0) Atomics.notify(lock, HOLDER, 1);
}

/** How many writers of the process wait for the lock now. */
export function writersWaiting(lock: SharedArrayBuffer): number {
  return Atomics.load(new Int32Array(lock), WAITING);
}

/** Frees the lock of a thread that ended while holding it (its transaction ended with its connection). */
export function releaseWritesOf(lock: SharedArrayBuffer, endedThreadId: number): void {
  const words = new Int32Array(lock);
  const held = endedThreadId + 1;
  if (Atomics.compareExchange(words, HOLDER, held, FREE) === held) Atomics.notify(words, HOLDER, 1);
}

/** Statements that only read: every other one takes the lock (a harmless wait if it reads after all). */
const READS = /^\s*(select|pragma\s+\w+\s*$|explain)\b/i;

/**
 * Kysely's driver with the lock taken around each write: a transaction holds it from `begin` to its
 * end, a statement outside one for that statement. Kysely hands a thread's one connection to one
 * user at a time, so a transaction never waits for a statement of its own thread.
 */
export function withWriteLock(inner: Driver, buffer: SharedArrayBuffer): Driver {
  const lock = new Int32Array(buffer);
  let inTransaction = false;
  // The driver's one connection, and what Kysely is given for it. Transactions begin and end on
  // the connection itself: their statements are under the transaction's hold already.
  let raw: DatabaseConnection | null = null;
  let wrapped: DatabaseConnection | null = null;
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    raw = connection;
    wrapped ??= {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        if (inTransaction || query.query.kind === "SelectQueryNode" || READS.test(query.sql)) {
          return connection.executeQuery<R>(query);
        }
        await lockWrites(lock);
        try {
          return await connection.executeQuery<R>(query);
        } finally {
          unlockWrites(lock);
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
    return wrapped;
  };
  const end = async (how: (c: DatabaseConnection) => Promise<void>) => {
    try {
      await how(raw!);
    } finally {
      inTransaction = false;
      unlockWrites(lock);
    }
  };
  return {
    init: () => inner.init(),
    destroy: () => inner.destroy(),
    acquireConnection: async () => wrap(await inner.acquireConnection()),
    releaseConnection: () => inner.releaseConnection(raw!),
    async beginTransaction(_connection: DatabaseConnection, settings: TransactionSettings) {
      await lockWrites(lock);
      try {
        await inner.beginTransaction(raw!, settings);
      } catch (error) {
        unlockWrites(lock);
        throw error;
      }
      inTransaction = true;
    },
    commitTransaction: () => end((c) => inner.commitTransaction(c)),
    rollbackTransaction: () => end((c) => inner.rollbackTransaction(c)),
    savepoint: (_c, name, compile) => inner.savepoint!(raw!, name, compile),
    rollbackToSavepoint: (_c, name, compile) => inner.rollbackToSavepoint!(raw!, name, compile),
    releaseSavepoint: (_c, name, compile) => inner.releaseSavepoint!(raw!, name, compile),
  };
}

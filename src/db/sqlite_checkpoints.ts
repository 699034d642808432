// WAL checkpoints off the main thread. node:sqlite is synchronous: when a commit crosses SQLite's
// automatic checkpoint threshold, copying the log back into the database (with an fsync) blocks the
// event loop for tens of milliseconds, and every request waiting behind it. So the main connection
// never checkpoints; this worker thread, with a connection of its own, does it every half second in
// PASSIVE mode, which waits for no reader and no writer.
// A PASSIVE checkpoint never makes the log start afresh, though: under writes that never pause (a
// large fan-out), it grows without end, and every read slows down with it. Past `restartLogAt`
// pages, the checkpoint waits for the writer of the moment and then has the next one write from the
// start of the log (RESTART); writers wait for it, on the process's write lock (sqlite_writes.ts)
// rather than in SQLite's busy handler, which would stop their threads. The file keeps its size,
// unless a burst made it larger than the connections' journal_size_limit (sqlite.ts).

import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import { CheckpointStat, lockWritesSync, unlockWrites } from "./sqlite_writes.ts";

const INTERVAL_MS = 500;
const restartLogAt = workerData.restartLogAt as number;
const writeLock = workerData.writeLock ? new Int32Array(workerData.writeLock as SharedArrayBuffer) : null;
/** What the metrics read of the checkpoints (CheckpointStat), written here only. */
const stats = new Float64Array(workerData.stats as SharedArrayBuffer);

const count = (total: CheckpointStat, longest: CheckpointStat, ms: number) => {
  stats[total - 1]++;
  stats[total] += ms;
  if (ms > stats[longest]) stats[longest] = ms;
};

let db: DatabaseSync | null = null;
const timer = setInterval(() => {
  try {
    db ??= new DatabaseSync(workerData.path as string, { timeout: 5000 });
    const started = performance.now();
    const result = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number };
    const passive = performance.now();
    count(CheckpointStat.PassiveMs, CheckpointStat.LongestPassiveMs, passive - started);
    stats[CheckpointStat.LogPages] = result.log;
    if (result.log > restartLogAt && (!writeLock || lockWritesSync(writeLock))) {
      const locked = performance.now();
      if (locked - passive > stats[CheckpointStat.LongestRestartWaitMs])
        stats[CheckpointStat.LongestRestartWaitMs] = locked - passive;
      try {
        db.exec("PRAGMA wal_checkpoint(RESTART)");
      } finally {
        if (writeLock) unlockWrites(writeLock);
        count(CheckpointStat.RestartMs, CheckpointStat.LongestRestartMs, performance.now() - locked);
      }
    }
  } catch {
    // Busy, closing, or already gone: the next round tries again.
  }
}, INTERVAL_MS);

parentPort?.on("message", () => {
  clearInterval(timer);
  db?.close();
  parentPort?.close();
});

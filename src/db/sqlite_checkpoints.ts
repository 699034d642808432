// WAL checkpoints off the main thread. node:sqlite is synchronous: when a commit crosses SQLite's
// automatic checkpoint threshold, copying the log back into the database (with an fsync) blocks the
// event loop for tens of milliseconds, and every request waiting behind it. So the main connection
// never checkpoints; this worker thread, with a connection of its own, does it every half second in
// PASSIVE mode, which waits for no reader and no writer.

import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

const INTERVAL_MS = 500;

let db: DatabaseSync | null = null;
const timer = setInterval(() => {
  try {
    db ??= new DatabaseSync(workerData.path as string, { timeout: 5000 });
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // Busy, closing, or already gone: the next round tries again.
  }
}, INTERVAL_MS);

parentPort?.on("message", () => {
  clearInterval(timer);
  db?.close();
  parentPort?.close();
});

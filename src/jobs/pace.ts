// The pace of background work done in chunks (an import's rows, a trim of every feed): the next
// chunk waits three times the CPU time this one kept its thread busy (up to two seconds; waiting on
// the database does not count), so the work takes about a quarter of the thread it runs on, and the
// requests that thread answers meanwhile keep their pace.
const MAX_PAUSE_MS = 2000;

/** Starts timing a chunk's work; the function returned says how long to wait before the next. */
export function paceChunk(): () => number {
  const started = process.threadCpuUsage();
  return () => {
    const used = process.threadCpuUsage(started);
    return Math.min((3 * (used.user + used.system)) / 1000, MAX_PAUSE_MS);
  };
}

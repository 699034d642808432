// A semaphore: at most `limit` tasks of one kind at a time in this thread, the rest waiting in order.
export function limiter(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    // A finished task hands its slot straight to the next one waiting.
    if (active >= limit) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

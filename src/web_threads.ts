// More threads answering HTTP in the one process. Node runs JavaScript on one core per thread, so
// each extra thread runs a whole copy of the app (its own database connection and caches) and
// listens on the same port; the kernel spreads connections among them (SO_REUSEPORT). In a server
// that runs jobs, every thread works them too: the kernel's spread of connections is uneven (a
// few busy peers may all land on one thread), and jobs claimed where a core is free keep the other
// threads' work from queueing behind that one. The main thread alone runs migrations, the jobs'
// housekeeping and SQLite checkpoints; cache invalidations and job wake-ups reach every thread on
// the bus. Each thread takes the id tag of its place in the process's block (src/domain/ids.ts): a
// replacement takes the place of the thread it replaces (thread ids only grow).
import { isMainThread, MessageChannel, type MessagePort, parentPort, Worker, workerData } from "node:worker_threads";
import type { Config } from "./config.ts";
import { releaseWritesOf } from "./db/sqlite_writes.ts";
import { useIdTagPlace } from "./domain/ids.ts";
import { closeHttp, listenHttp } from "./http_server.ts";
import { dispatcher, limitJobs } from "./jobs/handlers.ts";
import { JOB_CONCURRENCY } from "./jobs/queue.ts";
import { configureLogging, logger } from "./log.ts";
import { type ImageSlots, imageSlotsFor, releaseImageSlots, useImageSlots } from "./media/image_slots.ts";
import { heapLimits, releaseStartupMemory } from "./memory.ts";
import { createRuntime, type RuntimeOptions } from "./runtime.ts";

const log = logger("server");

interface ThreadData {
  role: "web";
  config: Config;
  options: RuntimeOptions;
  port: number;
  imageSlots: ImageSlots;
  /** Whether the thread works jobs (the server is `serve`, not `web`). */
  jobs: boolean;
  /** Its place among the process's threads (the main thread's is 0): its id tag's in the block. */
  place: number;
}

export interface WebThreads {
  /** The threads answering now, replacements included (not those still starting). */
  readonly threads: ReadonlySet<Worker>;
  /** Each thread's metrics (METRICS_PORT), as its registry gives them; a thread that does not answer soon is left out. */
  metrics(): Promise<object[]>;
  stop(): Promise<void>;
}

/** How long a scrape waits for a busy thread's metrics. */
const METRICS_WAIT_MS = 2000;

/** A thread that dies sooner than this after starting counts towards a crash loop. */
const QUICK_DEATH_MS = 10_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * Starts `count` threads listening on `port` next to the main thread (and working jobs when `jobs`),
 * once all of them listen. A thread that dies is replaced, so that one bad request never takes
 * capacity away for good; when threads keep dying right after starting, each replacement waits
 * twice as long as the last.
 */
export async function startWebThreads(
  config: Config,
  options: RuntimeOptions,
  port: number,
  count: number,
  jobs: boolean,
): Promise<WebThreads> {
  const threads = new Set<Worker>();
  const starting = new Set<Worker>();
  const timers = new Set<NodeJS.Timeout>();
  let stopping = false;
  let quickDeaths = 0;
  const freePlaces = new Set(Array.from({ length: count }, (_, i) => i + 1));

  const replace = (reason: string, lived: number) => {
    quickDeaths = lived < QUICK_DEATH_MS ? quickDeaths + 1 : 0;
    const delay = quickDeaths === 0 ? 0 : Math.min(1000 * 2 ** (quickDeaths - 1), MAX_BACKOFF_MS);
    log.error("A web thread stopped ({reason}) after {lived} ms; a new one starts in {delay} ms", {
      reason,
      lived,
      delay,
    });
    const timer = setTimeout(() => {
      timers.delete(timer);
      // A replacement that fails to start is replaced in turn, by its own exit.
      if (!stopping) spawn(false).catch(() => {});
    }, delay);
    timers.add(timer);
  };

  const spawn = (initial: boolean) =>
    new Promise<Worker>((resolve, reject) => {
      const place = Math.min(...freePlaces);
      freePlaces.delete(place);
      const data: ThreadData = { role: "web", config, options, port, imageSlots: imageSlotsFor(), jobs, place };
      const thread = new Worker(new URL(import.meta.url), {
        workerData: data,
        resourceLimits: heapLimits(config.memory, config.webThreads).thread,
      });
      const born = Date.now();
      let ready = false;
      let failure: unknown = null;
      starting.add(thread);
      thread.on("error", (error) => {
        failure = error;
      });
      thread.once("message", () => {
        ready = true;
        starting.delete(thread);
        threads.add(thread);
        resolve(thread);
      });
      const threadId = thread.threadId;
      thread.once("exit", (code) => {
        releaseImageSlots(data.imageSlots);
        freePlaces.add(place);
        if (options.sqliteWriteLock) releaseWritesOf(options.sqliteWriteLock, threadId);
        threads.delete(thread);
        starting.delete(thread);
        const reason = failure instanceof Error ? (failure.stack ?? failure.message) : `exit code ${code}`;
        if (!ready) reject(new Error(`a web thread exited while starting: ${reason}`));
        if (!stopping && !(initial && !ready)) replace(reason, Date.now() - born);
      });
    });

  await Promise.all(Array.from({ length: count }, () => spawn(true)));
  return {
    threads,
    metrics: () =>
      Promise.all(
        [...threads].map(
          (thread) =>
            new Promise<object>((resolve) => {
              const { port1, port2 } = new MessageChannel();
              const done = (metrics: object) => {
                clearTimeout(timer);
                port1.close();
                resolve(metrics);
              };
              const timer = setTimeout(() => done([]), METRICS_WAIT_MS);
              port1.once("message", done);
              thread.postMessage({ metrics: port2 }, [port2]);
            }),
        ),
      ),
    async stop() {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(
        [...threads, ...starting].map(
          (thread) =>
            new Promise<void>((resolve) => {
              // Requests under way get the same 10 s as the main thread's; then the thread is ended.
              const force = setTimeout(() => void thread.terminate(), 15_000);
              thread.once("exit", () => {
                clearTimeout(force);
                resolve();
              });
              thread.postMessage("stop");
            }),
        ),
      );
    },
  };
}

async function runWebThread({ config, options, port, imageSlots, jobs, place }: ThreadData): Promise<void> {
  useIdTagPlace(place);
  useImageSlots(imageSlots);
  await configureLogging(config.logLevel);
  const poolSize = config.dbPool + (jobs ? JOB_CONCURRENCY : 0);
  const rt = await createRuntime(config, { ...options, poolSize, migrate: false, sqliteCheckpoints: false, idTags: 0 });
  // Before listening, so that no request waits for the collection.
  releaseStartupMemory();
  const { server } = await listenHttp(rt, port, true);
  if (jobs) {
    limitJobs(rt.queue, "web");
    await rt.queue.start(dispatcher(rt));
  }
  parentPort!.on("message", async (message: "stop" | { metrics: MessagePort }) => {
    if (message !== "stop") {
      message.metrics.postMessage(rt.metrics ? await rt.metrics.registry.getMetricsAsJSON() : []);
      message.metrics.close();
      return;
    }
    await closeHttp(server);
    await rt.close();
    // Ends this thread only.
    process.exit(0);
  });
  parentPort!.postMessage("ready");
}

if (!isMainThread && (workerData as ThreadData | undefined)?.role === "web") {
  await runWebThread(workerData as ThreadData);
}

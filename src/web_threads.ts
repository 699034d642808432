// More threads answering HTTP in the one process. Node runs JavaScript on one core per thread, so
// each extra thread runs a whole copy of the app (its own database connection and caches) and
// listens on the same port; the kernel spreads connections among them (SO_REUSEPORT). The main
// thread alone runs migrations, jobs and SQLite checkpoints; cache invalidations and job wake-ups
// reach every thread on the bus.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { Config } from "./config.ts";
import { closeHttp, listenHttp } from "./http_server.ts";
import { configureLogging, logger } from "./log.ts";
import { createRuntime, type RuntimeOptions } from "./runtime.ts";

const log = logger("server");

interface ThreadData {
  role: "web";
  config: Config;
  options: RuntimeOptions;
  port: number;
}

export interface WebThreads {
  stop(): Promise<void>;
}

/** Starts `count` threads listening on `port` next to the main thread, once all of them listen. */
export async function startWebThreads(
  config: Config,
  options: RuntimeOptions,
  port: number,
  count: number,
): Promise<WebThreads> {
  const threads = await Promise.all(
    Array.from({ length: count }, async () => {
      const data: ThreadData = { role: "web", config, options, port };
      const thread = new Worker(new URL(import.meta.url), { workerData: data });
      await new Promise<void>((resolve, reject) => {
        thread.once("message", () => resolve());
        thread.once("error", reject);
        thread.once("exit", (code) => reject(new Error(`a web thread exited while starting (${code})`)));
      });
      thread.on("error", (error) => log.error("A web thread failed: {error}", { error: String(error) }));
      return thread;
    }),
  );
  return {
    async stop() {
      await Promise.all(
        threads.map(
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

async function runWebThread({ config, options, port }: ThreadData): Promise<void> {
  await configureLogging(config.logLevel);
  const rt = await createRuntime(config, { ...options, migrate: false, sqliteCheckpoints: false });
  const { server } = await listenHttp(rt, port, true);
  parentPort!.once("message", async () => {
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

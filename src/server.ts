// Running the server: the HTTP listener and/or the job worker, with a graceful shutdown.
import { type Config, loadConfig, loadDotEnv } from "./config.ts";
import { newWriteLock } from "./db/sqlite_writes.ts";
import { closeHttp, listenHttp } from "./http_server.ts";
import { JOB_CONCURRENCY } from "./jobs/queue.ts";
import { startWorker } from "./jobs/worker.ts";
import { configureLogging, logger } from "./log.ts";
import { describeFfmpeg } from "./media/ffmpeg.ts";
import { releaseStartupMemory } from "./memory.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "./runtime.ts";
import { listenRelay } from "./streaming/local_relay.ts";
import { startWebThreads, type WebThreads } from "./web_threads.ts";

export interface Roles {
  web: boolean;
  worker: boolean;
}

export interface Running {
  rt: Runtime;
  port: number;
  /** The web threads beside the main one (none with WEB_THREADS=1). */
  threads: WebThreads | null;
  /** The port of the metrics listener, when METRICS_PORT is set. */
  metricsPort: number | null;
  stop(): Promise<void>;
}

const log = logger("server");

/** Starts the roles asked for on a runtime made from `config` (and `options`, in every thread). */
export async function start(config: Config, roles: Roles, given: RuntimeOptions = {}): Promise<Running> {
  // Every thread's SQLite connection takes the same write lock.
  const options = { sqliteWriteLock: newWriteLock(), ...given };
  // The pool holds connections for the jobs on top of those for requests: a fan-out never leaves
  // requests waiting for one.
  const poolSize = config.dbPool + (roles.worker ? JOB_CONCURRENCY : 0);
  // An id tag for every thread that answers HTTP.
  const idTags = roles.web ? config.webThreads : 1;
  const rt = await createRuntime(config, { poolSize, idTags, ...options });
  let http: Awaited<ReturnType<typeof listenHttp>> | null = null;
  let threads: WebThreads | null = null;
  if (roles.web) http = await listenHttp(rt, rt.config.port, rt.config.webThreads > 1);
  // Before the web threads, which work jobs too: the main thread first restores what jobs need.
  if (roles.worker) await startWorker(rt);
  if (http && rt.config.webThreads > 1) {
    const shared = { ...options, queueHolder: rt.queue.holder };
    threads = await startWebThreads(rt.config, shared, http.port, rt.config.webThreads - 1, roles.worker);
  }
  // Loaded only when asked for, as the metrics themselves are (runtime.ts).
  const metrics =
    rt.metrics && rt.config.metrics
      ? await (await import("./metrics/listener.ts")).listenMetrics(rt.config.metrics, rt.metrics, async () =>
          threads ? threads.metrics() : [],
        )
      : null;
  // The one process of an embedded server hears the operator commands run beside it.
  const stopRelay =
    roles.web && roles.worker && !rt.config.redisUrl ? await listenRelay(rt.bus, rt.config.dataDir) : null;
  releaseStartupMemory();

  return {
    rt,
    port: http?.port ?? 0,
    threads,
    metricsPort: metrics?.port ?? null,
    async stop() {
      await Promise.all([
        http && closeHttp(http.server),
        threads?.stop(),
        stopRelay?.(),
        metrics && closeHttp(metrics.server),
      ]);
      await rt.close();
    },
  };
}

/** `rookery serve|web|worker`: runs until SIGTERM or SIGINT. */
export async function runServer(roles: Roles): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  await configureLogging(config.logLevel);
  const running = await start(config, roles);
  const threads = running.rt.config.webThreads;
  const what = [
    roles.web && `web on http://${config.bind}:${running.port} (${threads} thread${threads === 1 ? "" : "s"})`,
    roles.worker && "worker",
  ]
    .filter(Boolean)
    .join(" and ");
  log.info("Rookery started: {what}, {origin}, database {dialect}", {
    what,
    origin: config.origin,
    dialect: running.rt.dialect,
  });
  log.info("Media: stored {storage}; ffmpeg {ffmpeg}", {
    storage: config.media.s3 ? `in S3 bucket ${config.media.s3.bucket}` : "under DATA_DIR/media",
    ffmpeg: describeFfmpeg(config),
  });
  if (roles.web) console.log(`Rookery is listening on http://${config.bind}:${running.port} (${config.origin})`);
  if (running.metricsPort !== null) {
    log.info("Metrics on http://{bind}:{port}/metrics", { bind: config.metrics?.bind, port: running.metricsPort });
  }

  // Until a signal: a worker alone has nothing else holding the event loop open on SQLite (its
  // timers are unref'd, and it listens on no socket), and ended as soon as it found no work.
  const untilSignal = setInterval(() => {}, 2 ** 31 - 1);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(untilSignal);
    log.info("{signal}: stopping", { signal });
    await running.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

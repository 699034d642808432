// Everything a request, a job or a command needs, made once per process (or per test server):
// configuration, database, bus and queue. Passed explicitly so that several servers can live in
// one process (the federation tests run two).
import { type Config, ensureSecret } from "./config.ts";
import { claimIdTags } from "./db/id_tags.ts";
import { type Db, type Dialect, migrate, type OpenOptions, openDatabase } from "./db/index.ts";
import { remoteResolver } from "./federation/load.ts";
import { Queue } from "./jobs/queue.ts";
import type { Metrics } from "./metrics/metrics.ts";
import { type CounterStore, databaseCounters, redisCounters } from "./services/counter_stores.ts";
import type { RemoteResolver } from "./services/federation/resolver.ts";
import { loadServerSettings } from "./services/instance/settings.ts";
import { type Bus, memoryBus, redisBus } from "./streaming/bus.ts";
import type { Tracing } from "./tracing/tracing.ts";

export interface Runtime {
  config: Config;
  db: Db;
  dialect: Dialect;
  bus: Bus;
  queue: Queue;
  /** The API's rate-limit counters, shared by every thread and process. */
  counters: CounterStore;
  /** Finding what other servers have: federation's, for the services, which do not import it. */
  remote: RemoteResolver;
  /** This thread's Prometheus metrics, when METRICS_PORT is set. */
  metrics: Metrics | null;
  /** OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing: Tracing | null;
  close(): Promise<void>;
}

export interface RuntimeOptions extends OpenOptions {
  /** Apply pending migrations on open (the default). */
  migrate?: boolean;
  /** Without Redis, forward what is published to the server running on this DATA_DIR (operator commands). */
  forwardBus?: boolean;
  /** Read the server settings saved in the database (the default; not before `db migrate` made its tables). */
  serverSettings?: boolean;
  /** A web thread's: the holder of its server's job leases (Queue). */
  queueHolder?: string;
  /**
   * How many id tags the process's threads take, claimed on its first runtime (src/db/id_tags.ts):
   * 1 by default; 0 for a web thread (its main thread claimed them) or before the tables exist.
   */
  idTags?: number;
}

export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const withSecret = ensureSecret(config);
  const connection = await openDatabase(withSecret.databaseUrl, {
    poolSize: withSecret.dbPool,
    sqliteMemory: {
      cacheMb: withSecret.memory.sqliteCacheMb,
      mmapMb: withSecret.memory.sqliteMmapMb,
      statements: withSecret.memory.sqliteStatements,
    },
    ...options,
  });
  try {
    if (options.migrate !== false) await migrate(connection.db, options.schema);
    // Before anything can make an id.
    if (options.idTags !== 0) await claimIdTags(connection.db, options.idTags ?? 1);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const namespace = `rookery:${withSecret.localDomain}`;
  const bus = withSecret.redisUrl
    ? redisBus(withSecret.redisUrl, namespace)
    : memoryBus(namespace, options.forwardBus ? withSecret.dataDir : undefined);
  const queue = new Queue(
    connection.db,
    connection.dialect,
    withSecret.databaseUrl,
    bus,
    options.schema,
    options.queueHolder,
  );
  const counters = withSecret.redisUrl
    ? redisCounters(withSecret.redisUrl, namespace)
    : databaseCounters(connection.db);
  const rt: Runtime = {
    config: withSecret,
    db: connection.db,
    dialect: connection.dialect,
    bus,
    queue,
    counters,
    remote: remoteResolver,
    metrics: null,
    tracing: null,
    async close() {
      rt.metrics?.close();
      await queue.stop();
      await rt.tracing?.shutdown();
      await bus.close();
      await counters.close();
      await connection.close();
    },
  };
  if (withSecret.metrics) {
    // Loaded only when asked for: prom-client stays out of a server without metrics.
    const { createMetrics } = await import("./metrics/metrics.ts");
    rt.metrics = createMetrics(rt, connection);
    queue.onFailure = rt.metrics.jobFailed;
  }
  if (withSecret.tracing) {
    // Likewise: OpenTelemetry is loaded only when a collector is named.
    const { startTracing } = await import("./tracing/tracing.ts");
    rt.tracing = startTracing(withSecret.tracing);
  }
  if (options.serverSettings !== false) {
    try {
      await loadServerSettings(rt);
    } catch (error) {
      await rt.close();
      throw error;
    }
  }
  return rt;
}

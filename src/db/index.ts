// Opening the database named by DATABASE_URL, and applying migrations.
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, SqliteDialect, sql } from "kysely";
import { FileMigrationProvider, type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { logger } from "../log.ts";
import { type PoolWaits, timedDialect } from "./pool_waits.ts";
import type { Database } from "./schema.ts";
import { NodeSqliteDatabase } from "./sqlite.ts";
import { newWriteLock, withWriteLock, writersWaiting } from "./sqlite_writes.ts";

export type Db = Kysely<Database>;
export type Dialect = "sqlite" | "postgres";

export interface Connection {
  db: Db;
  dialect: Dialect;
  /** How the connections are used now (for the metrics). */
  usage(): PoolUsage;
  /** The connections lent out, and (once the metrics listen) how long each lending waited. */
  waits: PoolWaits;
  /** SQLite: the checkpoint thread's figures (CheckpointStat), when this connection looks after checkpoints. */
  checkpointStats?: Float64Array | null;
  close(): Promise<void>;
}

/**
 * PostgreSQL: the pool's connections, those idle, and the requests waiting for one. SQLite: its one
 * connection, and the writers of the process waiting for the write lock (sqlite_writes.ts). Both:
 * the connections lent to queries and transactions now.
 */
export interface PoolUsage {
  total: number;
  idle: number;
  inUse: number;
  waiting: number;
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (tests isolate each file in its own schema). */
  schema?: string;
  /** PostgreSQL only: the pool size. */
  poolSize?: number;
  /** SQLite only: whether this connection looks after WAL checkpoints (the default). */
  sqliteCheckpoints?: boolean;
  /** SQLite only: the page cache and the memory map of the connection, in MB, and its prepared statements kept. */
  sqliteMemory?: { cacheMb: number; mmapMb: number; statements: number };
  /** SQLite only: the write lock this connection shares with the other threads of the process (sqlite_writes.ts). */
  sqliteWriteLock?: SharedArrayBuffer;
}

/** Kysely's SQLite dialect with its driver taking the process's write lock. */
class LockingSqliteDialect extends SqliteDialect {
  readonly #lock: SharedArrayBuffer;
  constructor(database: NodeSqliteDatabase, lock: SharedArrayBuffer) {
    super({ database });
    this.#lock = lock;
  }
  override createDriver() {
    return withWriteLock(super.createDriver(), this.#lock);
  }
}

const log = logger("db");
const CONNECT_TIMEOUT_MS = 5000;

/** How Rookery's connections show in pg_stat_activity (with the schema, when it has one of its own). */
export function applicationName(schema?: string): string {
  return schema ? `rookery ${schema}` : "rookery";
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

/** The file a SQLite DATABASE_URL names (or `:memory:`). */
export function sqlitePath(url: string): string {
  if (url === ":memory:" || url === "sqlite::memory:") return ":memory:";
  return url.replace(/^(sqlite|file):(\/\/)?/, "");
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Connection> {
  if (dialectOf(url) === "postgres") {
    // Loaded for PostgreSQL only: a server on SQLite never loads node-postgres in any thread.
    const { default: pg } = await import("pg");
    const { PreparingClient, RookeryPostgresDialect } = await import("./postgres.ts");
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 4,
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
      application_name: applicationName(options.schema),
      Client: PreparingClient,
      // While the database is away, a request fails within seconds (503) instead of queueing for a
      // connection; keepalive notices a network cut on an idle connection.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    // An idle client whose server went away: the pool has already dropped it, and opens new ones
    // as requests need them, so the pool reconnects by itself once the database is back.
    pool.on("error", (error) => log.warn("PostgreSQL connection lost: {error}", { error: String(error) }));
    const waits: PoolWaits = { observe: null, inUse: 0 };
    const db = new Kysely<Database>({ dialect: timedDialect(new RookeryPostgresDialect({ pool }), waits) });
    const usage = () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      inUse: waits.inUse,
      waiting: pool.waitingCount,
    });
    return { db, dialect: "postgres", usage, waits, close: () => db.destroy() };
  }
  const writeLock = options.sqliteWriteLock ?? newWriteLock();
  const database = new NodeSqliteDatabase(sqlitePath(url), {
    checkpoints: options.sqliteCheckpoints,
    writeLock,
    ...options.sqliteMemory,
  });
  const waits: PoolWaits = { observe: null, inUse: 0 };
  const db = new Kysely<Database>({ dialect: timedDialect(new LockingSqliteDialect(database, writeLock), waits) });
  const usage = () => ({ total: 1, idle: 1 - waits.inUse, inUse: waits.inUse, waiting: writersWaiting(writeLock) });
  return {
    db,
    dialect: "sqlite",
    usage,
    waits,
    checkpointStats: database.checkpointStats,
    close: () => db.destroy(),
  };
}

const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** The migrations not yet applied to `db`: all of them on a database that has none. */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = Object.keys(await new FileMigrationProvider({ fs, path, migrationFolder }).getMigrations());
  let applied: Set<string>;
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    if (!/no such table|does not exist/.test(String(error))) throw error;
    applied = new Set();
  }
  return all.filter((name) => !applied.has(name));
}

/** How often a migration that takes long says it is still at work. */
const MIGRATION_HEARTBEAT_MS = 10_000;

/**
 * The migration files, each logged as it starts and ends (and every 10 s while it runs): on a large
 * database one may take minutes, and the operator sees where it is. The count of those pending is
 * read, in the migrations' own transaction, when the first one starts.
 */
function loggedMigrations(schema?: string): MigrationProvider {
  const files = new FileMigrationProvider({ fs, path, migrationFolder });
  return {
    async getMigrations() {
      const all = await files.getMigrations();
      const log = logger("db");
      let pending: number | null = null;
      let index = 0;
      const logged: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(all)) {
        logged[name] = {
          ...migration,
          async up(db) {
            if (pending === null) {
              const table = (schema ? db.withSchema(schema) : db) as unknown as Kysely<{
                kysely_migration: { name: string };
              }>;
              const done = await table.selectFrom("kysely_migration").select("name").execute();
              pending = Object.keys(all).length - done.length;
            }
            const step = `${name} (${++index} of ${pending})`;
            const started = Date.now();
            log.info("Applying migration {step}", { step });
            const seconds = () => Math.round((Date.now() - started) / 1000);
            const heartbeat = setInterval(
              () => log.info("Still applying {step}: {seconds} s", { step, seconds: seconds() }),
              MIGRATION_HEARTBEAT_MS,
            );
            try {
              await migration.up(db);
            } finally {
              clearInterval(heartbeat);
            }
            log.info("Applied {step} in {ms} ms", { step, ms: Date.now() - started });
          },
        };
      }
      return logged;
    },
  };
}

/**
 * Applies every pending migration (on PostgreSQL, in one transaction); returns the names applied.
 * Throws on the first failure. On PostgreSQL with a schema of its own, the bookkeeping tables live
 * in that schema too (Kysely otherwise looks for them across all schemas).
 */
export async function migrate(db: Db, schema?: string): Promise<string[]> {
  const migrator = new Migrator({ db, provider: loggedMigrations(schema), migrationTableSchema: schema });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === "Error");
    throw new Error(`migration ${failed?.migrationName ?? "?"} failed: ${(error as Error).message ?? error}`);
  }
  return results.filter((r) => r.status === "Success").map((r) => r.migrationName);
}

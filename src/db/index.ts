// Opening the database named by DATABASE_URL, and applying migrations.
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, SqliteDialect } from "kysely";
import { FileMigrationProvider, Migrator } from "kysely/migration";
import pg from "pg";
import { logger } from "../log.ts";
import { PreparingClient, RookeryPostgresDialect } from "./postgres.ts";
import type { Database } from "./schema.ts";
import { NodeSqliteDatabase } from "./sqlite.ts";

export type Db = Kysely<Database>;
export type Dialect = "sqlite" | "postgres";

export interface Connection {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (tests isolate each file in its own schema). */
  schema?: string;
  /** PostgreSQL only: the pool size. */
  poolSize?: number;
  /** SQLite only: whether this connection looks after WAL checkpoints (the default). */
  sqliteCheckpoints?: boolean;
  /** SQLite only: the page cache and the memory map of the connection, in MB. */
  sqliteMemory?: { cacheMb: number; mmapMb: number };
}

function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

function sqlitePath(url: string): string {
  if (url === ":memory:" || url === "sqlite::memory:") return ":memory:";
  return url.replace(/^(sqlite|file):(\/\/)?/, "");
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Connection> {
  if (dialectOf(url) === "postgres") {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 4,
      options: options.schema ? `-c search_path=${options.schema}` : undefined,
      Client: PreparingClient,
    });
    const db = new Kysely<Database>({ dialect: new RookeryPostgresDialect({ pool }) });
    return { db, dialect: "postgres", close: () => db.destroy() };
  }
  const database = new NodeSqliteDatabase(sqlitePath(url), {
    checkpoints: options.sqliteCheckpoints,
    ...options.sqliteMemory,
  });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return { db, dialect: "sqlite", close: () => db.destroy() };
}

const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** How often a migration that takes long says it is still at work. */
const MIGRATION_HEARTBEAT_MS = 10_000;

/**
 * Applies every pending migration, one at a time, each in its own transaction; returns the names
 * applied. Throws on the first failure. When there are any, each is logged as it starts and ends
 * (and every 10 s while it runs): on a large database one may take minutes, and the operator sees
 * where it is. On PostgreSQL with a schema of its own, the bookkeeping tables live in that schema
 * too (Kysely otherwise looks for them across all schemas).
 */
export async function migrate(db: Db, schema?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder }),
    migrationTableSchema: schema,
  });
  const pending = (await migrator.getMigrations()).filter((m) => !m.executedAt).map((m) => m.name);
  const log = logger("db");
  const applied: string[] = [];
  for (const [index, name] of pending.entries()) {
    const step = `${name} (${index + 1} of ${pending.length})`;
    const started = Date.now();
    log.info("Applying migration {step}", { step });
    const heartbeat = setInterval(
      () =>
        log.info("Still applying {step}: {seconds} s", { step, seconds: Math.round((Date.now() - started) / 1000) }),
      MIGRATION_HEARTBEAT_MS,
    );
    const { error, results = [] } = await migrator.migrateUp().finally(() => clearInterval(heartbeat));
    if (error) {
      const failed = results.find((r) => r.status === "Error");
      throw new Error(`migration ${failed?.migrationName ?? name} failed: ${(error as Error).message ?? error}`);
    }
    applied.push(...results.filter((r) => r.status === "Success").map((r) => r.migrationName));
    log.info("Applied {step} in {ms} ms", { step, ms: Date.now() - started });
  }
  return applied;
}

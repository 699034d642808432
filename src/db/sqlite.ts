// Kysely's SQLite dialect over Node's built-in node:sqlite, with the row adapter that makes SQLite rows
// look like PostgreSQL rows: bigint → string, boolean → boolean, timestamptz → Date, jsonb → parsed.
// Kysely ships no node:sqlite driver, so this small one is ours.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { Worker } from "node:worker_threads";
import type { SqliteDatabase, SqliteStatement } from "kysely";

type Convert = (value: unknown) => unknown;

const byDeclaredType: Record<string, Convert> = {
  bigint: (v) => (v === null ? null : String(v)),
  boolean: (v) => (v === null ? null : v === 1n || v === 1),
  timestamptz: (v) => (v === null ? null : new Date(v as string)),
  jsonb: (v) => (typeof v === "string" ? JSON.parse(v) : typeof v === "bigint" ? Number(v) : v),
  integer: (v) => (typeof v === "bigint" ? Number(v) : v),
};

/** Integers of expressions (count(*), max(id)) have no declared type: numbers when exact, else strings. */
const untyped: Convert = (v) =>
  typeof v === "bigint"
    ? v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : String(v)
    : v;

function converterFor(type: string | null): Convert {
  if (type === null) return untyped;
  return byDeclaredType[type.toLowerCase()] ?? untyped;
}

function toParam(value: unknown): SQLInputValue {
  switch (typeof value) {
    case "boolean":
      return value ? 1 : 0;
    case "undefined":
      return null;
    case "object":
      if (value === null || value instanceof Uint8Array) return value;
      if (value instanceof Date) return value.toISOString();
      return JSON.stringify(value);
    default:
      return value as SQLInputValue;
  }
}

class Statement implements SqliteStatement {
  readonly reader: boolean;
  #stmt: StatementSync;
  #names: string[];
  #converters: Convert[];

  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    const columns = stmt.columns();
    this.reader = columns.length > 0;
    this.#names = columns.map((c) => c.name);
    this.#converters = columns.map((c) => converterFor(c.type));
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    const rows = this.#stmt.all(...parameters.map(toParam)) as Record<string, unknown>[];
    return rows.map((row) => this.#convert(row));
  }

  run(parameters: ReadonlyArray<unknown>) {
    return this.#stmt.run(...parameters.map(toParam));
  }

  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    for (const row of this.#stmt.iterate(...parameters.map(toParam))) {
      yield this.#convert(row as Record<string, unknown>);
    }
  }

  /**
   * A plain object with converted values. node:sqlite's rows have no prototype; building new objects
   * the same way every time also gives them one shape, which keeps reading them fast.
   */
  #convert(row: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < this.#names.length; i++) {
      const name = this.#names[i];
      out[name] = this.#converters[i](row[name]);
    }
    return out;
  }
}

/** The size the WAL is held to under writes that never pause. */
const LOG_LIMIT = 64 * 1024 * 1024;
/**
 * The size its file is cut back to when the log starts afresh. The writer that starts it afresh
 * does the cutting, in its commit: cutting back to LOG_LIMIT (which the file passes before every
 * restart under sustained writes) took that commit about 20 ms, once a second. The file grows past
 * four times LOG_LIMIT only in a burst, and is cut back to that then.
 */
const LOG_FILE_LIMIT = 4 * LOG_LIMIT;

/** A node:sqlite database shaped for Kysely, with a bounded cache of prepared statements. */
export class NodeSqliteDatabase implements SqliteDatabase {
  #db: DatabaseSync;
  #cache = new Map<string, Statement>();
  #checkpoints: Worker | null = null;
  readonly #ownsCheckpoints: boolean;
  /** What the checkpoint thread reports (CheckpointStat), when this connection has one. */
  readonly checkpointStats: Float64Array | null = null;
  /**
   * Prepared statements kept: a statement costs from a few KB to about 40 KB (a timeline's live
   * state), and every length of an `in (…)` list is a statement of its own, so the cache fills
   * slowly as new lengths come, up to this bound.
   */
  readonly #statements: number;

  /**
   * `checkpoints`: this connection looks after checkpoints (one per database file does; the other
   * threads of a process leave them to it). `restartLogAt`: the log's length, in pages, past which
   * a checkpoint makes it start afresh (by default LOG_LIMIT in 4 KB pages). `statements`: how
   * many prepared statements to keep. `writeLock`: the process's write lock, which the checkpoints
   * take while they keep writers out (sqlite_writes.ts).
   */
  constructor(
    path: string,
    {
      checkpoints = true,
      restartLogAt = LOG_LIMIT / 4096,
      cacheMb = 8,
      mmapMb = 0,
      statements = 200,
      writeLock,
    }: {
      checkpoints?: boolean;
      restartLogAt?: number;
      cacheMb?: number;
      mmapMb?: number;
      statements?: number;
      writeLock?: SharedArrayBuffer;
    } = {},
  ) {
    this.#statements = statements;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.#ownsCheckpoints = checkpoints && path !== ":memory:";
    this.#db = new DatabaseSync(path, { readBigInts: true, timeout: 5000 });
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA foreign_keys = ON;
      PRAGMA cache_size = -${cacheMb * 1024};
      PRAGMA mmap_size = ${mmapMb * 1024 * 1024};
      PRAGMA temp_store = MEMORY;
    `);
    if (path !== ":memory:") {
      // Checkpoints happen in a worker thread (see sqlite_checkpoints.ts), not in commits here.
      this.#db.exec(`PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = ${LOG_FILE_LIMIT}`);
    }
    if (this.#ownsCheckpoints) {
      const stats = new SharedArrayBuffer(8 * Float64Array.BYTES_PER_ELEMENT);
      this.checkpointStats = new Float64Array(stats);
      this.#checkpoints = new Worker(new URL("./sqlite_checkpoints.ts", import.meta.url), {
        workerData: { path, restartLogAt, writeLock, stats },
        // It holds one connection and a timer: a small heap keeps it to a few MB.
        resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
      });
      this.#checkpoints.unref();
      // Should the worker fail, SQLite goes back to checkpointing in commits.
      this.#checkpoints.on("error", () => {
        if (this.#db.isOpen) this.#db.exec("PRAGMA wal_autocheckpoint = 1000");
      });
    }
  }

  prepare(text: string): SqliteStatement {
    // Transactions take the write lock when they begin. A deferred one that reads, then writes, fails
    // at once (SQLITE_BUSY) if another thread's connection wrote in between; an immediate one waits.
    const sql = text === "begin" ? "begin immediate" : text;
    // A schema change can change what `select *` returns: start the cache afresh.
    if (/^\s*(create|alter|drop)\s/i.test(sql)) this.#cache.clear();
    let stmt = this.#cache.get(sql);
    if (stmt) {
      // Refresh its place so the cache evicts the least recently used statement.
      this.#cache.delete(sql);
    } else {
      stmt = new Statement(this.#db.prepare(sql));
      if (this.#cache.size >= this.#statements) {
        this.#cache.delete(this.#cache.keys().next().value as string);
      }
    }
    this.#cache.set(sql, stmt);
    return stmt;
  }

  close(): void {
    this.#cache.clear();
    this.#checkpoints?.postMessage("close");
    this.#checkpoints = null;
    if (!this.#db.isOpen) return;
    // Leave the database whole in its file, and the log empty.
    if (this.#ownsCheckpoints) this.#db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    this.#db.close();
  }
}

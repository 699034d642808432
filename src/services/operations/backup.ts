// Backups of a Rookery server, taken while it runs, and putting one back. What a server cannot be
// rebuilt from: its database, its media (under DATA_DIR/media; a bucket when S3 is on) and its
// secret key (DATA_DIR/secret_key_base, unless SECRET_KEY_BASE is configured), which seals the Web
// Push tokens and signs the sessions. The actors' signing keys are rows of the database.
//
// SQLite is copied with its online backup API in a single step: one read transaction, so the copy
// is the database as of one commit, while the server goes on writing (WAL lets writers past a
// reader; a copy in several steps would restart whenever the server writes). PostgreSQL is the
// operator's to dump with pg_dump, which does the same on its side.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { copyFile, cp, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync, backup as sqliteBackup } from "node:sqlite";
import type { Config } from "../../config.ts";
import { type Dialect, dialectOf, sqlitePath } from "../../db/index.ts";
import { mediaRoot } from "../../media/storage.ts";
import { ROOKERY_VERSION } from "../../version.ts";

/** What a backup folder says of itself. */
export interface Manifest {
  rookery: string;
  createdAt: string;
  database: Dialect;
  /** The last migration the database had: a server of this version or newer applies the rest. */
  migration: string | null;
  media: "local" | "s3";
  secretKey: boolean;
}

const MANIFEST = "rookery-backup.json";
const DATABASE = "rookery.sqlite";
const MEDIA = "media";
const SECRET = "secret_key_base";
/** Every page in one step (node:sqlite takes a positive page count; SQLite's own "all" is -1). */
const ALL_PAGES = 2 ** 31 - 1;

export class BackupError extends Error {}

const isEmptyOrAbsent = (dir: string) => !existsSync(dir) || readdirSync(dir).length === 0;

/** What was done and what the operator still has to do, one line each. */
export interface Outcome {
  manifest: Manifest;
  notes: string[];
}

export async function takeBackup(config: Config, dir: string): Promise<Outcome> {
  if (!isEmptyOrAbsent(dir)) throw new BackupError(`${dir} is not empty: give a new folder for each backup.`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const notes: string[] = [];
  const dialect = dialectOf(config.databaseUrl);
  let migration: string | null = null;
  if (dialect === "sqlite") {
    const source = new DatabaseSync(sqlitePath(config.databaseUrl), { readOnly: true, timeout: 5000 });
    try {
      const pages = await sqliteBackup(source, join(dir, DATABASE), { rate: ALL_PAGES });
      notes.push(`Database: copied (${pages} pages).`);
    } finally {
      source.close();
    }
    migration = settleCopy(join(dir, DATABASE));
  } else {
    notes.push(
      "Database: PostgreSQL is not copied here. Dump it with pg_dump, e.g.",
      `  pg_dump --format=custom --file=${join(dir, "rookery.pgdump")} "$DATABASE_URL"`,
    );
  }
  const media = config.media.s3 ? "s3" : "local";
  if (config.media.s3) {
    notes.push(`Media: stored in the S3 bucket ${config.media.s3.bucket}; back it up with your provider's tools.`);
  } else if (existsSync(mediaRoot(config))) {
    // After the database: a file the copy names was there before it, so it is here too (unless
    // deleted meanwhile); files uploaded since are extra, and harmless.
    await cp(mediaRoot(config), join(dir, MEDIA), { recursive: true, preserveTimestamps: true });
    notes.push("Media: copied.");
  } else {
    notes.push("Media: none yet.");
  }
  const secretFile = join(config.dataDir, SECRET);
  const secretKey = config.secretKeyBase === "" && existsSync(secretFile);
  if (secretKey) {
    await copyFile(secretFile, join(dir, SECRET));
    notes.push("Secret key: copied.");
  } else {
    notes.push("Secret key: SECRET_KEY_BASE is configured; keep it with your configuration.");
  }
  const manifest: Manifest = {
    rookery: ROOKERY_VERSION,
    createdAt: new Date().toISOString(),
    database: dialect,
    migration,
    media,
    secretKey,
  };
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return { manifest, notes };
}

/**
 * Makes the copy one self-contained file (it is a WAL database like its source, which would leave
 * log files beside it when opened), and reads its last migration.
 */
function settleCopy(file: string): string | null {
  const db = new DatabaseSync(file);
  try {
    db.exec("PRAGMA journal_mode = DELETE");
    const row = db.prepare("select max(name) as name from kysely_migration").get() as { name: string | null };
    return row.name;
  } finally {
    db.close();
  }
}

export function readManifest(dir: string): Manifest {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) throw new BackupError(`${dir} holds no ${MANIFEST}: it is not a Rookery backup.`);
  return JSON.parse(readFileSync(file, "utf8")) as Manifest;
}

/**
 * Puts the backup in `dir` back under the configured DATA_DIR (and SQLite file), which must be
 * empty unless `force`: then what is there is replaced. The server must be stopped meanwhile.
 */
export async function restoreBackup(config: Config, dir: string, force: boolean): Promise<Outcome> {
  const manifest = readManifest(dir);
  const dialect = dialectOf(config.databaseUrl);
  if (manifest.database !== dialect) {
    throw new BackupError(`The backup holds a ${manifest.database} database, but DATABASE_URL names ${dialect}.`);
  }
  const database = dialect === "sqlite" ? sqlitePath(config.databaseUrl) : null;
  const occupied = !isEmptyOrAbsent(config.dataDir) || (database !== null && existsSync(database));
  if (occupied && !force) {
    throw new BackupError(
      `${config.dataDir} is not empty: restore into a fresh DATA_DIR, or give --force to replace what is there (stop the server first).`,
    );
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const notes: string[] = [];
  if (database) {
    // The old database's log files would otherwise be applied to the restored one.
    for (const suffix of ["", "-wal", "-shm"]) await rm(database + suffix, { force: true });
    await copyFile(join(dir, DATABASE), database);
    notes.push(`Database: restored to ${database}.`);
  } else {
    notes.push(
      "Database: restore PostgreSQL with pg_restore into an empty database, e.g.",
      `  pg_restore --no-owner --dbname="$DATABASE_URL" ${join(dir, "rookery.pgdump")}`,
    );
  }
  if (existsSync(join(dir, MEDIA))) {
    await rm(mediaRoot(config), { recursive: true, force: true });
    await cp(join(dir, MEDIA), mediaRoot(config), { recursive: true, preserveTimestamps: true });
    notes.push("Media: restored.");
  } else if (manifest.media === "s3") {
    notes.push("Media: they live in the S3 bucket; the backup holds none.");
  }
  if (manifest.secretKey) {
    await copyFile(join(dir, SECRET), join(config.dataDir, SECRET));
    notes.push("Secret key: restored.");
  } else {
    notes.push("Secret key: configure the same SECRET_KEY_BASE as the backed-up server had.");
  }
  notes.push(`The backup was taken by Rookery ${manifest.rookery}; a newer Rookery migrates it when it starts.`);
  return { manifest, notes };
}

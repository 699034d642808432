// `rookery backup DIR` and `rookery restore DIR`: see src/services/operations/backup.ts.
import { loadConfig, loadDotEnv } from "../config.ts";
import { restoreBackup, takeBackup } from "../services/operations/backup.ts";
import { type Command, parse, UsageError } from "./command.ts";

/** Prints what was done and what is left to the operator (failures print their one line, in main.ts). */
async function reporting(run: () => Promise<{ notes: string[] }>, done: string): Promise<void> {
  const { notes } = await run();
  for (const note of notes) console.log(note);
  console.log(done);
}

export const backupCommand: Command = {
  name: "backup",
  usage: "backup DIR",
  summary: "Copy the database (SQLite), media and secret key into a new folder while the server runs",
  async run(args) {
    const { positionals } = parse(args, {});
    if (positionals.length !== 1) throw new UsageError("Give the folder to write the backup to.");
    loadDotEnv();
    const dir = positionals[0]!;
    await reporting(() => takeBackup(loadConfig(), dir), `Backup written to ${dir}.`);
  },
};

export const restoreCommand: Command = {
  name: "restore",
  usage: "restore DIR [--force]",
  summary: "Put a backup back into an empty DATA_DIR (--force replaces what is there)",
  async run(args) {
    const { values, positionals } = parse(args, { force: { type: "boolean" } });
    if (positionals.length !== 1) throw new UsageError("Give the backup's folder.");
    loadDotEnv();
    const dir = positionals[0]!;
    await reporting(() => restoreBackup(loadConfig(), dir, values.force === true), `Restored from ${dir}.`);
  },
};

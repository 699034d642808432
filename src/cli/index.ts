// The command registry: every `rookery <command>`.
import { migrate } from "../db/index.ts";
import { runServer } from "../server.ts";
import { accountsCommand } from "./accounts.ts";
import { announcementsCommand } from "./announcements.ts";
import { backupCommand, restoreCommand } from "./backup.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";
import { doctorCommand } from "./doctor.ts";
import { emojiCommand } from "./emoji.ts";
import { feedsCommand } from "./feeds.ts";
import { mediaCommand } from "./media.ts";
import { relaysCommand } from "./relays.ts";
import { searchCommand } from "./search.ts";
import { domainsCommand, rulesCommand, siteCommand } from "./site.ts";
import { suggestionsCommand } from "./suggestions.ts";
import { trendsCommand } from "./trends.ts";

const list: Command[] = [
  {
    name: "serve",
    usage: "serve",
    summary: "Run the web server and the job worker in one process (the default)",
    run: () => runServer({ web: true, worker: true }),
  },
  {
    name: "web",
    usage: "web",
    summary: "Run only the web server (scale out with several, plus `rookery worker`)",
    run: () => runServer({ web: true, worker: false }),
  },
  {
    name: "worker",
    usage: "worker",
    summary: "Run only the job worker",
    run: () => runServer({ web: false, worker: true }),
  },
  {
    name: "db",
    usage: "db migrate",
    summary: "Apply pending database migrations",
    async run(args) {
      const { positionals } = parse(args, {});
      if (positionals[0] !== "migrate") throw new UsageError("Unknown db command");
      const applied = await withRuntime((rt) => migrate(rt.db), { migrate: false, serverSettings: false, idTags: 0 });
      console.log(applied.length === 0 ? "The database is up to date." : `Applied: ${applied.join(", ")}`);
    },
  },
  accountsCommand,
  rulesCommand,
  domainsCommand,
  relaysCommand,
  siteCommand,
  feedsCommand,
  mediaCommand,
  searchCommand,
  suggestionsCommand,
  emojiCommand,
  announcementsCommand,
  trendsCommand,
  backupCommand,
  restoreCommand,
  doctorCommand,
];

export const commands = new Map(list.map((c) => [c.name, c]));

export function usage(): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    "Usage: rookery <command> [options]",
    "",
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    ...list.map((c) => `  rookery ${c.usage}`),
    "",
    "Configuration comes from environment variables and an optional .env file (see docs/configuration.md).",
  ].join("\n");
}

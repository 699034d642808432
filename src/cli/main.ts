// Runs the command named on the command line: `serve` (web and worker in one process, the
// default), `web`, `worker`, or an operator command.
import { ConfigError } from "../config.ts";
import { UsageError } from "./command.ts";
import { commands, usage } from "./index.ts";

const [name = "serve", ...args] = process.argv.slice(2);
const command = commands.get(name);

if (name === "--help" || name === "-h" || name === "help") {
  console.log(usage());
} else if (!command) {
  console.error(`Unknown command "${name}".\n\n${usage()}`);
  process.exitCode = 2;
} else {
  try {
    await command.run(args);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exitCode = 78;
    } else if (error instanceof UsageError) {
      console.error(`${error.message}\n\nUsage: rookery ${command.usage}`);
      process.exitCode = 2;
    } else {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    }
  }
}

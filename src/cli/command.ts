// What an operator command is, and the helpers every command shares.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { loadConfig, loadDotEnv } from "../config.ts";
import { configureLogging } from "../log.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../runtime.ts";

export interface Command {
  name: string;
  usage: string;
  summary: string;
  run(args: string[]): Promise<void>;
}

/** A mistake in how a command was called: printed with the command's usage. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs `fn` with a runtime made from the environment (and .env), and closes it afterwards. */
export async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>, options: RuntimeOptions = {}): Promise<T> {
  loadDotEnv();
  const config = loadConfig();
  await configureLogging(config.logLevel === "info" ? "warn" : config.logLevel);
  // What the command changes reaches a running server's caches at once (with Redis, through it).
  const rt = await createRuntime(config, { forwardBus: true, ...options });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

// Structured logs: one JSON line per record on stdout, through LogTape (which Fedify logs through too).
import { AsyncLocalStorage } from "node:async_hooks";
import { configure, getConsoleSink, getJsonLinesFormatter, getLogger, type Logger } from "@logtape/logtape";
import type { Config } from "./config.ts";

const levels = { debug: "debug", info: "info", warn: "warning", error: "error" } as const;

export async function configureLogging(level: Config["logLevel"]): Promise<void> {
  if (level === "silent") {
    await configure({
      reset: true,
      sinks: {},
      loggers: [{ category: ["logtape", "meta"], sinks: [], lowestLevel: "fatal" }],
    });
    return;
  }
  await configure({
    reset: true,
    // Fedify logs with context (its request and activity ids), which needs the storage.
    contextLocalStorage: new AsyncLocalStorage(),
    sinks: {
      stdout: getConsoleSink({ formatter: getJsonLinesFormatter({ message: "template", properties: "flatten" }) }),
    },
    loggers: [
      { category: ["rookery"], sinks: ["stdout"], lowestLevel: levels[level] },
      { category: ["logtape", "meta"], sinks: ["stdout"], lowestLevel: "warning" },
    ],
  });
}

export function logger(...category: string[]): Logger {
  return getLogger(["rookery", ...category]);
}

// Log records kept in memory, for tests that check what the server logged.
import { configure, type LogRecord } from "@logtape/logtape";
import { configureLogging } from "../src/log.ts";

/** From now on, records of `category` (and below) at `lowestLevel` or above go to the returned list. */
export async function captureLogs(category: string[], lowestLevel: "debug" | "info"): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { memory: (record) => records.push(record) },
    loggers: [
      { category, sinks: ["memory"], lowestLevel },
      { category: ["logtape", "meta"], sinks: [], lowestLevel: "fatal" },
    ],
  });
  return records;
}

/** Back to the silence the test rig keeps. */
export const stopCapturingLogs = () => configureLogging("silent");

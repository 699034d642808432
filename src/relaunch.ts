// A server process sets its main thread's heap limits by starting itself again with them, in
// place (execve: same process id, nothing left behind), before it loads or opens anything. Limits
// given by the operator (NODE_OPTIONS or node's own flags) are left as they are. MALLOC_ARENA_MAX
// keeps glibc from giving every thread its own 64 MB arenas of native memory.
import { getCompileCacheDir } from "node:module";
import { ConfigError, loadConfig, loadDotEnv } from "./config.ts";
import { heapLimits } from "./memory.ts";

const SERVER_COMMANDS = new Set(["serve", "web", "worker"]);

export function relaunchWithinLimits(command: string): void {
  if (!SERVER_COMMANDS.has(command) || typeof process.execve !== "function") return;
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  if (process.env.ROOKERY_HEAP_LIMITS || /max-old-space-size|max-semi-space-size/.test(given)) return;
  loadDotEnv();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    // The command itself reports a configuration error.
    if (error instanceof ConfigError) return;
    throw error;
  }
  const compileCache = getCompileCacheDir();
  const limits = heapLimits(config.memory, config.webThreads);
  const flags = [
    `--max-old-space-size=${limits.mainOldMb}`,
    `--max-semi-space-size=${limits.mainSemiMb}`,
    ...(limits.growingPercent === null ? [] : [`--heap-growing-percent=${limits.growingPercent}`]),
    // For releaseStartupMemory, once each thread has started.
    "--expose-gc",
    // Buffers (an upload's body and the files made of it) count towards the heap's global limit
    // rather than the old generation's: with the old generation's small limit, every 4 MB photo
    // uploaded started a full collection of the thread that received it.
    "--external-memory-accounted-in-global-limit",
  ];
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    ROOKERY_HEAP_LIMITS: "1",
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
    // The compile cache main.ts enabled, on from the start this time: the entry and every web
    // thread then load cached JavaScript, and none of them loads Node's TypeScript stripper
    // (about 15 MB a thread) once the cache is warm.
    ...(compileCache ? { NODE_COMPILE_CACHE: compileCache } : {}),
  });
}

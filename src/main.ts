// Entry point. Before anything large is loaded: compiled modules (their TypeScript already
// stripped) are cached on disk, which spares a restart and every web thread about a third of its
// start-up; and a server process starts itself again with its memory limits (src/relaunch.ts).
import { enableCompileCache } from "node:module";

enableCompileCache();
const { relaunchWithinLimits } = await import("./relaunch.ts");
relaunchWithinLimits(process.argv[2] ?? "serve");
await import("./cli/main.ts");

// Staying within MEMORY_LIMIT: a thread near its heap limit sheds load, and a server process
// starts itself again with its main thread's heap limits.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startServer } from "./rig.ts";

test("past MEMORY_SHED_AT of its heap, a thread answers 503 with Retry-After; prepared answers still go out", async () => {
  // A threshold any heap is past: every request meets a full thread.
  const server = await startServer({ env: { MEMORY_SHED_AT: "0.0001" } });
  try {
    const refused = await server.get("/api/v1/timelines/public");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    assert.deepEqual(refused.body, { error: "The server is short of memory; try again in a few seconds" });
    assert.equal((await server.get("/api/v2/instance")).status, 200);
  } finally {
    await server.close();
  }
  // Another server in the same thread, with the default threshold, is not affected.
  const calm = await startServer();
  try {
    assert.equal((await calm.get("/api/v1/timelines/public")).status, 200);
  } finally {
    await calm.close();
  }
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

test("`rookery serve` runs its main thread with the heap limits MEMORY_LIMIT gives, in the same process", {
  skip: existsSync("/proc/self/cmdline") ? false : "needs /proc",
}, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "rookery-memory-"));
  const port = await freePort();
  const child = spawn(process.execPath, [join(import.meta.dirname, "../src/main.ts"), "serve"], {
    env: {
      ...process.env,
      ROOKERY_HEAP_LIMITS: "",
      NODE_OPTIONS: "",
      PORT: String(port),
      LOCAL_DOMAIN: `127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${join(dataDir, "rookery.sqlite")}`,
      MEMORY_LIMIT: "384",
      WEB_THREADS: "1",
      LOG_LEVEL: "warn",
    },
    stdio: "ignore",
  });
  try {
    let answered = false;
    for (let i = 0; i < 600 && !answered; i++) {
      answered = await fetch(`http://127.0.0.1:${port}/api/v2/instance`).then(
        (r) => r.ok,
        () => false,
      );
      if (!answered) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(answered, "the server answered");
    const args = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
    assert.ok(args.includes("--max-old-space-size=154"), args.join(" "));
    // One web thread: the main thread serves alone and has the others' young generation.
    assert.ok(args.includes("--max-semi-space-size=32"), args.join(" "));
    // Each thread gives back the young generation its start-up grew (releaseStartupMemory).
    assert.ok(args.includes("--expose-gc"), args.join(" "));
    // Uploads' buffers count towards the global heap limit, not the old generation's.
    assert.ok(args.includes("--external-memory-accounted-in-global-limit"), args.join(" "));
    const environ = readFileSync(`/proc/${child.pid}/environ`, "utf8").split("\0");
    assert.ok(environ.includes("MALLOC_ARENA_MAX=2"));
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
});

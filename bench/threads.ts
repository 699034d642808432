// The web-threads benchmark (`npm run bench:threads`): `rookery serve` in this process with three
// web threads (SQLite), each request on a connection of its own so that the kernel hands it to any
// thread. One post at a time, BENCH_POSTS (30) of them: the time from the POST being answered to
// the post being in the author's home timeline, that is until a thread was woken to fan it out.
// A job found by the queue's own polling instead would take up to its poll (2 s on SQLite).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "../src/config.ts";
import { start } from "../src/server.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { log, percentile } from "./lib.ts";

const POSTS = Number(process.env.BENCH_POSTS ?? 30);

const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-threads-"));
const config = loadConfig({
  LOCAL_DOMAIN: "threads.bench",
  PORT: "0",
  WEB_THREADS: "3",
  DATA_DIR: dataDir,
  DATABASE_URL: `sqlite:${join(dataDir, "rookery.sqlite")}`,
  SECRET_KEY_BASE: randomBytes(32).toString("hex"),
  LOG_LEVEL: "silent",
});
const running = await start(config, { web: true, worker: true });
try {
  const app = await createApplication(running.rt, {
    name: "Bench",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const user = await createLocalUser(running.rt, {
    username: "bench",
    email: "bench@example.test",
    password: "correct horse battery staple",
  });
  const { token } = await issueToken(running.rt, {
    applicationId: app.id,
    userId: user.userId,
    scopes: ["read", "write"],
  });

  const call = (method: string, path: string, body?: unknown) =>
    new Promise<any>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: running.port,
          method,
          path,
          agent: false,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => resolve(JSON.parse(text)));
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  const delays: number[] = [];
  for (let i = 0; i < POSTS; i++) {
    const { id } = await call("POST", "/api/v1/statuses", { status: `Post ${i}` });
    const answered = performance.now();
    while (!(await call("GET", "/api/v1/timelines/home?limit=1")).some((s: { id: string }) => s.id === id)) {
      await sleep(2);
    }
    delays.push(performance.now() - answered);
  }
  log(
    `load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(" ")}`,
  );
  console.log("| posts | in the home timeline after the POST, p50 / max | the queue's poll |");
  console.log("|---|---|---|");
  console.log(`| ${POSTS} | ${Math.round(percentile(delays, 50))} / ${Math.round(Math.max(...delays))} ms | 2000 ms |`);
} finally {
  await running.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

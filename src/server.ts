// Running the server: the HTTP listener and/or the job worker, with a graceful shutdown.
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { createApp } from "./app.ts";
import { type Config, loadConfig, loadDotEnv } from "./config.ts";
import { startWorker } from "./jobs/worker.ts";
import { configureLogging, logger } from "./log.ts";
import { createRuntime, type Runtime } from "./runtime.ts";

export interface Roles {
  web: boolean;
  worker: boolean;
}

export interface Running {
  rt: Runtime;
  port: number;
  stop(): Promise<void>;
}

const log = logger("server");

/** Starts the roles asked for on a runtime made from `config`. */
export async function start(config: Config, roles: Roles): Promise<Running> {
  const rt = await createRuntime(config);
  let server: ReturnType<typeof createAdaptorServer> | null = null;
  let port = 0;
  if (roles.web) {
    const app = createApp(rt);
    server = createAdaptorServer({ fetch: app.fetch });
    await new Promise<void>((resolve, reject) => {
      server!.once("error", reject);
      server!.listen(config.port, config.bind, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  }
  if (roles.worker) await startWorker(rt);

  return {
    rt,
    port,
    async stop() {
      if (server) {
        const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
        // Idle keep-alive connections would hold the close; requests under way get 10 s to finish.
        (server as import("node:http").Server).closeIdleConnections();
        const force = setTimeout(() => (server as import("node:http").Server).closeAllConnections(), 10_000);
        await closed;
        clearTimeout(force);
      }
      await rt.close();
    },
  };
}

/** `rookery serve|web|worker`: runs until SIGTERM or SIGINT. */
export async function runServer(roles: Roles): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  await configureLogging(config.logLevel);
  const running = await start(config, roles);
  const what = [roles.web && `web on http://${config.bind}:${running.port}`, roles.worker && "worker"]
    .filter(Boolean)
    .join(" and ");
  log.info("Rookery started: {what}, {origin}, database {dialect}", {
    what,
    origin: config.origin,
    dialect: running.rt.dialect,
  });
  if (roles.web) console.log(`Rookery is listening on http://${config.bind}:${running.port} (${config.origin})`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("{signal}: stopping", { signal });
    await running.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

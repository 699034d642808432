// The HTTP listener of a thread: Hono's app on Node's http server, and its graceful close.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { createApp } from "./app.ts";
import type { Runtime } from "./runtime.ts";

/** Listens on `port` (0: any). `shared`: other threads listen on the same port (SO_REUSEPORT). */
export async function listenHttp(
  rt: Runtime,
  port: number,
  shared: boolean,
): Promise<{ server: Server; port: number }> {
  const app = createApp(rt);
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: rt.config.bind, reusePort: shared }, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Stops listening; idle keep-alive connections close now, requests under way get 10 s to finish. */
export async function closeHttp(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(force);
}

// The HTTP listener of a thread: Hono's app on Node's http server, and its graceful close.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { preparedRoutes } from "./api/prepared_routes.ts";
import { createApp } from "./app.ts";
import { preparedListener } from "./http/prepared.ts";
import type { Runtime } from "./runtime.ts";

/** What answers a thread's requests: prepared answers first, then the app. */
export function requestListener(
  rt: () => Runtime,
  app: () => ReturnType<typeof createApp>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return preparedListener(
    rt,
    preparedRoutes,
    getRequestListener((req, env) => app().fetch(req, env)),
  );
}

/** Listens on `port` (0: any). `shared`: other threads listen on the same port (SO_REUSEPORT). */
export async function listenHttp(
  rt: Runtime,
  port: number,
  shared: boolean,
): Promise<{ server: Server; port: number }> {
  const app = createApp(rt);
  const server = createServer(
    requestListener(
      () => rt,
      () => app,
    ),
  );
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

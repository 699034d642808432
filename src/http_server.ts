// The HTTP listener of a thread: Hono's app on Node's http server, and its graceful close.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, getRequestListener } from "@hono/node-server";
import { WebSocketServer } from "ws";
import { preparedRoutes } from "./api/prepared_routes.ts";
import { createApp } from "./app.ts";
import { addressOf } from "./http/hono.ts";
import { preparedListener } from "./http/prepared.ts";
import type { Runtime } from "./runtime.ts";
import { accessRefused } from "./services/moderation/ip_blocks.ts";
import { closeStreams } from "./streaming/hub.ts";

/** What to end before a server closes: its open streams, which would otherwise hold it open. */
const beforeClose = new WeakMap<Server, () => void>();

/**
 * What answers a thread's requests: prepared answers first, then the app. In limited federation
 * mode the instance's API answers go through the app, which asks for a signed-in user; so do the
 * requests of an address under a no_access block, which the app refuses.
 */
export function requestListener(
  rt: () => Runtime,
  app: () => ReturnType<typeof createApp>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const viaApp = getRequestListener((req, env) => app().fetch(req, env));
  const prepared = preparedListener(rt, preparedRoutes, viaApp);
  return (req, res) => {
    if (rt().config.limitedFederation && req.url?.startsWith("/api/")) return viaApp(req, res);
    const forwarded = req.headers["x-forwarded-for"];
    const ip = addressOf(req.socket.remoteAddress ?? null, typeof forwarded === "string" ? forwarded : undefined);
    if (!ip) return prepared(req, res);
    void accessRefused(rt(), ip).then((refused) => (refused ? viaApp(req, res) : prepared(req, res)));
  };
}

/**
 * An HTTP server answering with requestListener, whose WebSocket upgrades go through the app like
 * any request (auth, then /api/v1/streaming); ws only speaks the protocol. Compression is off: it
 * costs each idle socket tens of kilobytes. The Node adaptor wires upgrades only on a server of its
 * own making: its upgrade handler is taken from one (never listening) and put on ours.
 */
export function createHttpServer(rt: () => Runtime, app: () => ReturnType<typeof createApp>): Server {
  const server = createServer(requestListener(rt, app));
  const websocket = { server: new WebSocketServer({ noServer: true, perMessageDeflate: false }) };
  const adaptor = createAdaptorServer({ fetch: (req, env) => app().fetch(req, env), websocket });
  for (const upgrade of adaptor.listeners("upgrade")) server.on("upgrade", upgrade as () => void);
  beforeClose.set(server, () => closeStreams(rt()));
  return server;
}

/** Listens on `port` (0: any). `shared`: other threads listen on the same port (SO_REUSEPORT). */
export async function listenHttp(
  rt: Runtime,
  port: number,
  shared: boolean,
): Promise<{ server: Server; port: number }> {
  const app = createApp(rt);
  const server = createHttpServer(
    () => rt,
    () => app,
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: rt.config.bind, reusePort: shared }, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** Stops listening; idle keep-alive connections close now, requests under way get 10 s to finish. */
export async function closeHttp(server: Server): Promise<void> {
  beforeClose.get(server)?.();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(force);
}

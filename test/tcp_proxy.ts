// A TCP proxy to a server (Redis, PostgreSQL) that a test can cut (every connection dropped, the
// port closed) and restore on the same port: the server going away, as a restart or a network cut
// makes it, without touching the server the other test files share.
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  listen(): Promise<void>;
  readonly listening: boolean;
  readonly port: number;
  cut(): Promise<void>;
}

export function tcpProxy(target: { host: string; port: number }): TcpProxy {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  return {
    listen: () =>
      new Promise<void>((resolve, reject) => {
        server = createServer((client) => {
          const upstream = connect(target);
          for (const s of [client, upstream]) {
            sockets.add(s);
            s.on("close", () => sockets.delete(s));
            s.on("error", () => {
              client.destroy();
              upstream.destroy();
            });
          }
          client.pipe(upstream).pipe(client);
        });
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          port = (server!.address() as { port: number }).port;
          resolve();
        });
      }),
    get listening() {
      return server?.listening ?? false;
    },
    get port() {
      return port;
    },
    async cut() {
      const closed = new Promise((r) => server!.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

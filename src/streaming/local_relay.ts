// Without Redis, a server's bus reaches only its own threads, so what an operator command
// (`rookery accounts approve`, `rookery domains block`, …) publishes from its own process would not
// reach the caches of the running server until they expire. The server therefore listens on a Unix
// socket under DATA_DIR, readable by its own user only, and commands forward what they publish to
// it: one JSON line per message. node:net is enough for this; nothing else is involved.
import { chmodSync, existsSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { logger } from "../log.ts";
import type { Bus } from "./bus.ts";

const FILE = "bus.sock";
/** A Unix socket's path must fit in sockaddr_un (108 bytes on Linux). */
const MAX_PATH = 100;
const MAX_LINE = 1024 * 1024;
const FORWARD_TIMEOUT_MS = 1000;

export function relayPath(dataDir: string): string | null {
  const path = join(dataDir, FILE);
  return Buffer.byteLength(path) <= MAX_PATH ? path : null;
}

/** Republishes on `bus` what other processes forward to the socket; returns how to stop. */
export async function listenRelay(bus: Bus, dataDir: string): Promise<() => Promise<void>> {
  const path = relayPath(dataDir);
  const log = logger("bus");
  if (!path) {
    log.warn("DATA_DIR's path is too long for a Unix socket: operator commands reach the server only through Redis");
    return async () => {};
  }
  // A socket left by a server that died; a server still running on this DATA_DIR loses it to us.
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    let buffered = "";
    socket.setEncoding("utf8");
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_LINE) return socket.destroy();
      let end = buffered.indexOf("\n");
      while (end >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        end = buffered.indexOf("\n");
        try {
          const { channel, message } = JSON.parse(line) as { channel: unknown; message: unknown };
          if (typeof channel === "string" && typeof message === "string") void bus.publish(channel, message);
        } catch {
          // Only this user's processes can connect; a malformed line is dropped.
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  server.unref();
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      rmSync(path, { force: true });
    });
}

/** Sends one message to the server listening under `dataDir`, if one is; never throws. */
export function forwardToRelay(dataDir: string, channel: string, message: string): Promise<void> {
  const path = relayPath(dataDir);
  if (!path || !existsSync(path)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const socket = connect(path);
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.setTimeout(FORWARD_TIMEOUT_MS, done);
    socket.on("error", done);
    socket.on("close", done);
    socket.end(`${JSON.stringify({ channel, message })}\n`);
  });
}

// Files served as they are: uploaded media under /system/ and the few built-in images in public/.
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/hono.ts";
import { mediaRoot } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";

const PUBLIC_DIR = fileURLToPath(new URL("../../public", import.meta.url));

/** Uploaded files never change under a name (a new upload gets a new one): cache them for a year. */
export function mediaFiles(rt: Runtime): MiddlewareHandler<AppEnv> {
  const root = mediaRoot(rt.config);
  mkdirSync(root, { recursive: true });
  return serveStatic({
    root,
    rewriteRequestPath: (path) => path.replace(/^\/system/, ""),
    onFound: (_path, c) => {
      c.header("Cache-Control", "public, max-age=31536000, immutable");
    },
  });
}

export const publicFiles: MiddlewareHandler<AppEnv> = serveStatic({
  root: PUBLIC_DIR,
  onFound: (_path, c) => {
    c.header("Cache-Control", "public, max-age=86400");
  },
});

// Files served as they are: uploaded media under /system/ and the few built-in images in public/.
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/hono.ts";
import { ARCHIVES_PREFIX, mediaRoot, PENDING_PREFIX } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";

const PUBLIC_DIR = fileURLToPath(new URL("../../public", import.meta.url));

/** The only types media files are served as; anything else is a download, never a page. */
const MEDIA_TYPES: Record<string, string> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  mp3: "audio/mpeg",
};

/**
 * Uploaded files never change under a name (a new upload gets a new one): cache them for a year.
 * Browsers must not sniff them into something runnable, nor run anything in them: no script, no
 * styles, a sandbox. Uploads still waiting for processing are not served at all.
 */
export function mediaFiles(rt: Runtime): MiddlewareHandler<AppEnv> {
  const root = mediaRoot(rt.config);
  mkdirSync(root, { recursive: true });
  const serve = serveStatic<AppEnv>({
    root,
    rewriteRequestPath: (path) => path.replace(/^\/system/, ""),
    onFound: (path, c) => {
      const type = MEDIA_TYPES[path.split(".").pop()?.toLowerCase() ?? ""];
      c.header("Cache-Control", "public, max-age=31536000, immutable");
      c.header("X-Content-Type-Options", "nosniff");
      c.header("Content-Security-Policy", "default-src 'none'; sandbox");
      c.header("Content-Type", type ?? "application/octet-stream");
      if (!type) c.header("Content-Disposition", "attachment");
    },
  });
  return async (c, next) => {
    const path = c.req.path;
    if (path.startsWith(`/system/${PENDING_PREFIX}`) || path.startsWith(`/system/${ARCHIVES_PREFIX}`))
      return c.json({ error: "Record not found" }, 404);
    return serve(c, next);
  };
}

export const publicFiles: MiddlewareHandler<AppEnv> = serveStatic({
  root: PUBLIC_DIR,
  onFound: (_path, c) => {
    c.header("Cache-Control", "public, max-age=86400");
  },
});

// Where uploaded files live. The local backend writes under DATA_DIR/media, which the web server
// serves at /system/; the interface stays narrow (put, delete, url) so that an object store can
// stand in later.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../config.ts";
import { urls } from "../domain/urls.ts";

export interface Storage {
  put(key: string, data: Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
  /** Where clients fetch the file stored under `key`. */
  url(key: string): string;
}

export function mediaRoot(config: Config): string {
  return join(config.dataDir, "media");
}

export function mediaStorage(config: Config): Storage {
  const root = resolve(mediaRoot(config));
  const pathOf = (key: string) => {
    const path = resolve(root, key);
    if (!path.startsWith(`${root}/`)) throw new Error(`Storage key outside the media folder: ${key}`);
    return path;
  };
  const u = urls(config);
  return {
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data);
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    url: (key) => u.media(key),
  };
}

// Running the Python clients in tests: Mastodon.py and toot from Debian's packages (`apt-get install
// python3-mastodon toot`). Tests that need one are skipped, with that message, when it is missing.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestServer, TestUser } from "./rig.ts";

export const PYTHON = "/usr/bin/python3";

function available(module: string): boolean {
  try {
    execFileSync(PYTHON, ["-c", `import ${module}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export const skipMastodonPy = available("mastodon")
  ? false
  : "Mastodon.py is not installed (apt-get install python3-mastodon)";
export const skipToot = available("toot") ? false : "toot is not installed (apt-get install toot)";

/**
 * Signs `user` in to toot, with its configuration under `dir` (pass `{ XDG_CONFIG_HOME: dir }` in
 * toot's environment).
 */
export function tootSignIn(dir: string, server: TestServer, user: TestUser): void {
  const host = new URL(server.url).host;
  const config = {
    apps: { [host]: { instance: host, base_url: server.url, client_id: "unused", client_secret: "unused" } },
    users: { [`${user.username}@${host}`]: { instance: host, username: user.username, access_token: user.token } },
    active_user: `${user.username}@${host}`,
  };
  mkdirSync(join(dir, "toot"), { recursive: true });
  writeFileSync(join(dir, "toot", "config.json"), JSON.stringify(config));
}

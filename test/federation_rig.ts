// Two (or more) Rookery servers on loopback that federate with each other: each has its own
// database (SQLite files, or schemas of TEST_DATABASE_URL), its own LOCAL_DOMAIN (127.0.0.1:port)
// and ALLOW_PRIVATE_ADDRESSES, so that they reach each other over plain http. `settleAll` waits
// until every server's queue is idle, repeatedly, since one server's deliveries make jobs on the other.
import assert from "node:assert/strict";
import { type ServerOptions, startServer, type TestServer, type TestUser } from "./rig.ts";

export async function startFederatedServers(count = 2, options: ServerOptions = {}): Promise<TestServer[]> {
  const servers: TestServer[] = [];
  for (let i = 0; i < count; i++) {
    servers.push(await startServer({ ...options, env: { ALLOW_PRIVATE_ADDRESSES: "true", ...options.env } }));
  }
  return servers;
}

/** Waits until no server has work left, including work another server's deliveries caused. */
export async function settleAll(servers: TestServer[]): Promise<void> {
  for (let round = 0; round < 20; round++) {
    await Promise.all(servers.map((s) => s.settle()));
    const waiting = await Promise.all(
      servers.map((s) =>
        s.rt.db
          .selectFrom("jobs")
          .select("id")
          .where("failed_at", "is", null)
          .where("run_at", "<=", new Date(Date.now() + 2000))
          .executeTakeFirst(),
      ),
    );
    if (waiting.every((w) => w === undefined)) return;
  }
}

/** `user@domain` of a user on `server`. */
export function handle(server: TestServer, user: TestUser): string {
  return `${user.username}@${new URL(server.url).host}`;
}

/** The id on `viewerServer` of the account `user` of `home`, looked up as a person would. */
export async function lookupRemote(viewerServer: TestServer, viewer: TestUser, home: TestServer, user: TestUser) {
  const res = await viewerServer.get("/api/v1/accounts/lookup", {
    token: viewer.token,
    query: { acct: handle(home, user) },
  });
  assert.equal(res.status, 200, res.text);
  return res.body as { id: string; acct: string; url: string; uri: string };
}

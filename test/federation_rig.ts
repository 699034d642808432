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

/**
 * Waits until no server has work left, including work another server's deliveries caused and
 * retries a loaded machine made necessary (a fetch that timed out is tried again a second or a few
 * later): jobs due within half a minute are waited for.
 */
export async function settleAll(servers: TestServer[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    await Promise.all(servers.map((s) => s.settle()));
    const waiting = await Promise.all(
      servers.map((s) =>
        s.rt.db
          .selectFrom("jobs")
          .select("id")
          .where("failed_at", "is", null)
          .where("run_at", "<=", new Date(Date.now() + 30_000))
          .executeTakeFirst(),
      ),
    );
    if (waiting.every((w) => w === undefined)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Reads a local actor once, which makes its key pairs: on a loaded machine, making them while
 * another server waits for the actor can outlast that server's fetch deadline.
 */
export async function warmActor(server: TestServer, user: TestUser): Promise<void> {
  const res = await server.get(`/users/${user.username}`, { headers: { accept: "application/activity+json" } });
  assert.equal(res.status, 200, res.text);
}

/** `user@domain` of a user on `server`. */
export function handle(server: TestServer, user: TestUser): string {
  return `${user.username}@${new URL(server.url).host}`;
}

/**
 * Runs `attempt` until it passes, a few times: on a loaded machine the first fetch between two
 * servers (which makes both actors' keys) can outlast a fetch's deadline, and a person would try
 * again.
 */
export async function eventually<T>(attempt: () => Promise<T>, tries = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** The id on `viewerServer` of the account `user` of `home`, looked up as a person would. */
export function lookupRemote(viewerServer: TestServer, viewer: TestUser, home: TestServer, user: TestUser) {
  return eventually(async () => {
    const res = await viewerServer.get("/api/v1/accounts/lookup", {
      token: viewer.token,
      query: { acct: handle(home, user) },
    });
    assert.equal(res.status, 200, res.text);
    return res.body as { id: string; acct: string; url: string; uri: string };
  });
}

// What the benchmarks that post to inboxes share (bench/federation.ts, bench/scale.ts): stand-in
// remote actors made known to the server through a real exchange, Create(Note) activities signed
// beforehand, sent from a thread of their own (inbox_load.ts), and waiting until the jobs they made
// are done.
import { Worker } from "node:worker_threads";
import type { Db } from "../src/db/index.ts";
import type { Runtime } from "../src/runtime.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { loadActivity } from "../test/activity_fixtures.ts";
import { type RemoteServer, signedPostHeaders } from "../test/remote_actors.ts";
import type { SignedRequest } from "./inbox_load.ts";
import { pool } from "./pool.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

export async function post(url: string, activity: unknown, remote: RemoteServer, username: string): Promise<number> {
  const body = JSON.stringify(activity);
  const headers = signedPostHeaders(remote.actor(username), url, body, "draft-cavage");
  const res = await fetch(url, { method: "POST", headers, body });
  await res.arrayBuffer();
  return res.status;
}

export function fill(serverUrl: string, remote: RemoteServer, username: string) {
  const actor = remote.actor(username);
  return {
    actor: actor.id,
    actor_url: `${remote.origin}/@${username}`,
    actor_username: username,
    origin: remote.origin,
    host: remote.host,
    target: `${serverUrl}/users/alice`,
  };
}

/** Makes alice, the local account the remote actors follow (see seedFollows), and a token of hers for the application. */
export async function makeAlice(rt: Runtime, applicationId: string): Promise<string> {
  const alice = await createLocalUser(rt, {
    username: "alice",
    email: "alice@example.test",
    password: "correct horse battery staple",
    roleId: null,
  });
  return (await issueToken(rt, { applicationId, userId: alice.userId, scopes: ["read", "write", "follow"] })).token;
}

/** Until no job is due within a minute (later ones are housekeeping), looking every 50 ms. */
export async function drained(db: Db, done: () => Promise<boolean> = async () => true): Promise<void> {
  for (;;) {
    const job = await db
      .selectFrom("jobs")
      .select("id")
      .where("failed_at", "is", null)
      .where("run_at", "<=", new Date(Date.now() + 60_000))
      .executeTakeFirst();
    if (!job && (await done())) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Makes the 50 actors known to the server as a real exchange does: each follows alice (so the
 * server fetches and stores the actor and its key), and alice follows each back, which it accepts.
 */
export async function seedFollows(serverUrl: string, db: Db, token: string, remote: RemoteServer, names: string[]) {
  await pool(
    names.map((name) => () => {
      const follow = loadActivity("mastodon/follow", fill(serverUrl, remote, name));
      follow.id = `${remote.actor(name).id}#follows/alice`;
      return post(`${serverUrl}/inbox`, follow, remote, name);
    }),
    10,
  );
  await drained(db);
  for (const name of names) {
    const lookup = await fetch(`${serverUrl}/api/v1/accounts/lookup?acct=${name}@${remote.host}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const account = (await lookup.json()) as { id?: string };
    if (!account.id) throw new Error(`lookup of ${name}: ${JSON.stringify(account)}`);
    const followed = await fetch(`${serverUrl}/api/v1/accounts/${account.id}/follow`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    if (followed.status !== 200) throw new Error(`follow of ${name}: ${await followed.text()}`);
  }
  await drained(db);
  for (const name of names) {
    const follow = remote.deliveries
      .map((d) => JSON.parse(d.body))
      .find((a) => a.type === "Follow" && a.object === remote.actor(name).id);
    if (!follow) throw new Error(`no Follow of ${name} was delivered`);
    const accept = loadActivity("mastodon/accept_follow", { ...fill(serverUrl, remote, name), our_follow: follow.id });
    accept.id = `${remote.actor(name).id}#accepts/${follow.id}`;
    await post(`${serverUrl}/inbox`, accept, remote, name);
  }
  await drained(db);
}

/**
 * Posts the requests, `concurrency` at a time, from a thread of its own, so that the load does not
 * share the server's cores' accounting; the refused ones and the CPU time it took.
 */
export async function send(
  requests: SignedRequest[],
  concurrency: number,
  rate: number | null,
): Promise<{ refused: number; cpuMs: number }> {
  const worker = new Worker(new URL("./inbox_load.ts", import.meta.url), {
    workerData: { requests, concurrency, rate },
  });
  const done = await new Promise<{ statuses: number[]; cpuMicros: number }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  return { refused: done.statuses.filter((s) => s !== 202).length, cpuMs: done.cpuMicros / 1000 };
}

/**
 * `count` Create(Note) activities of the `names` actors (in turns), numbered from `from`, signed
 * for `inbox`; with `via`, sent to those origins in turns instead (servers sharing one address).
 */
export function signedCreates(
  remote: RemoteServer,
  names: string[],
  inbox: string,
  from: number,
  count: number,
  via: string[] = [],
): SignedRequest[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const name = names[i % names.length];
    const actor = remote.actor(name).id;
    const id = `${actor}/statuses/${100000 + i}`;
    const note = {
      id,
      type: "Note",
      attributedTo: actor,
      content: `<p>post number ${i}</p>`,
      published: new Date().toISOString(),
      to: [PUBLIC],
      cc: [`${actor}/followers`],
    };
    const activity = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${id}/activity`,
      type: "Create",
      actor,
      to: note.to,
      cc: note.cc,
      object: note,
    };
    const body = JSON.stringify(activity);
    const headers = signedPostHeaders(remote.actor(name), inbox, body, "draft-cavage");
    const target = via.length > 0 ? new URL(new URL(inbox).pathname, via[i % via.length]).href : undefined;
    return { url: inbox, target, headers, body };
  });
}

// The federation benchmark (`npx node bench/federation.ts`), in two parts:
//  1. inbox ingest: BENCH_CREATES (2,000 by default) signed Create(Note) activities from 50 remote
//     actors that a local account follows (so their keys are known and each post goes to a home
//     feed), posted 50 at a time to the shared inbox; how many the inbox accepts per second, and
//     how many per second are done (their jobs drained) counting from the first request;
//  2. delivery: one post of an account with 1,000 followers spread over 100 loopback servers;
//     how many deliveries arrive (one per server's shared inbox, not one per follower) and when the
//     last one does.
// The ingest is run twice: once with the job worker running (the rates above), and once in two
// steps (the worker stopped while the requests arrive, then started to drain them), which gives the
// server's CPU time per accepted request and per drained activity (with every job it leads to).
// SQLite by default; TEST_DATABASE_URL=postgres://… for PostgreSQL. The server, its job worker and
// the stand-in remote servers share this one process; the load runs in a thread of its own, signed
// beforehand, and its CPU time is not counted as the server's. BENCH_PARTS=ingest runs the ingest only.
import { Worker } from "node:worker_threads";
import { dispatcher } from "../src/jobs/handlers.ts";
import { loadActivity } from "../test/activity_fixtures.ts";
import { type RemoteServer, signedPostHeaders, startRemoteServer } from "../test/remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "../test/rig.ts";
import type { SignedRequest } from "./inbox_load.ts";
import { log } from "./lib.ts";
import { pool } from "./pool.ts";

const CREATES = Number(process.env.BENCH_CREATES ?? 2000);
const CONCURRENCY = 50;
const PARTS = (process.env.BENCH_PARTS ?? "ingest,delivery").split(",");
const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

async function post(url: string, activity: unknown, remote: RemoteServer, username: string): Promise<number> {
  const body = JSON.stringify(activity);
  const headers = signedPostHeaders(remote.actor(username), url, body, "draft-cavage");
  const res = await fetch(url, { method: "POST", headers, body });
  await res.arrayBuffer();
  return res.status;
}

function fill(server: TestServer, remote: RemoteServer, username: string) {
  const actor = remote.actor(username);
  return {
    actor: actor.id,
    actor_url: `${remote.origin}/@${username}`,
    actor_username: username,
    origin: remote.origin,
    host: remote.host,
    target: `${server.url}/users/alice`,
  };
}

/** `alice` follows `username` of `remote`, which accepts. */
async function followRemote(server: TestServer, alice: TestUser, remote: RemoteServer, username: string) {
  const res = await server.get("/api/v1/accounts/lookup", {
    token: alice.token,
    query: { acct: `${username}@${remote.host}` },
  });
  if (res.status !== 200) throw new Error(`lookup: ${res.text}`);
  await server.post(`/api/v1/accounts/${res.body.id}/follow`, { token: alice.token });
  await server.settle();
  const follow = remote.deliveries
    .map((d) => JSON.parse(d.body))
    .find((a) => a.type === "Follow" && a.object === remote.actor(username).id);
  if (!follow) throw new Error("no Follow was delivered");
  const accept = loadActivity("mastodon/accept_follow", { ...fill(server, remote, username), our_follow: follow.id });
  accept.id = `${remote.actor(username).id}#accepts/${follow.id}`;
  await post(`${server.url}/inbox`, accept, remote, username);
}

async function ingest(): Promise<void> {
  const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  const remote = await startRemoteServer();
  try {
    const alice = await server.user("alice");
    const names = Array.from({ length: 50 }, (_, i) => `poster${i}`);
    // Each actor makes itself known (a follow of alice) and alice follows it back.
    for (const name of names) {
      const follow = loadActivity("mastodon/follow", fill(server, remote, name));
      follow.id = `${remote.actor(name).id}#follows/alice`;
      await post(`${server.url}/inbox`, follow, remote, name);
    }
    await server.settle();
    for (const name of names) await followRemote(server, alice, remote, name);
    await server.settle();

    const inbox = `${server.url}/inbox`;
    /** `CREATES` Create(Note) activities, signed now; `batch` keeps the ids of each run apart. */
    const signed = (batch: number): SignedRequest[] =>
      Array.from({ length: CREATES }, (_, i) => {
        const name = names[i % names.length];
        const actor = remote.actor(name).id;
        const id = `${actor}/statuses/${batch}${100000 + i}`;
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
        return { url: inbox, headers: signedPostHeaders(remote.actor(name), inbox, body, "draft-cavage"), body };
      });
    /** Posts the requests from a thread of its own; the server's CPU time is the process's less the thread's. */
    const send = async (requests: SignedRequest[]) => {
      const cpu = process.cpuUsage();
      const worker = new Worker(new URL("./inbox_load.ts", import.meta.url), {
        workerData: { requests, concurrency: CONCURRENCY },
      });
      const done = await new Promise<{ statuses: number[]; cpuMicros: number }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      await worker.terminate();
      const used = process.cpuUsage(cpu);
      return {
        refused: done.statuses.filter((s) => s !== 202).length,
        serverMicros: used.user + used.system - done.cpuMicros,
        loadMicros: done.cpuMicros,
      };
    };
    const perActivity = (micros: number) => `${(micros / 1000 / CREATES).toFixed(2)} ms`;
    log(`inbox: ${CREATES} signed Create(Note) from ${names.length} followed actors, ${CONCURRENCY} at a time`);

    // Throughput: requests and jobs at once, as a busy server has them.
    const first = signed(1);
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const sent = await send(first);
    const accepted = performance.now();
    await server.settle();
    const drained = performance.now();
    const cpuAll = process.cpuUsage(cpuStarted);
    const stored = await server.rt.db
      .selectFrom("statuses")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("local", "=", false)
      .executeTakeFirstOrThrow();
    const home = await server.get("/api/v1/timelines/home", { token: alice.token, query: { limit: "40" } });
    log(
      `  accepted ${CREATES - sent.refused} (${sent.refused} refused) in ${((accepted - started) / 1000).toFixed(2)} s: ${Math.round((CREATES - sent.refused) / ((accepted - started) / 1000))}/s accepted`,
    );
    log(
      `  all jobs done ${((drained - started) / 1000).toFixed(2)} s after the first request: ${Math.round(CREATES / ((drained - started) / 1000))}/s drained; ${stored.n} statuses stored, home feed shows ${home.body.length} of its first 40`,
    );
    log(
      `  server CPU per activity, accepted and drained: ${perActivity(cpuAll.user + cpuAll.system - sent.loadMicros)}`,
    );

    // CPU per activity: the requests with the worker stopped, then the jobs alone.
    const second = signed(2);
    await server.rt.queue.stop();
    const acceptOnly = await send(second);
    const cpuDrain = process.cpuUsage();
    await server.rt.queue.start(dispatcher(server.rt));
    await server.settle();
    const drainUsed = process.cpuUsage(cpuDrain);
    log(
      `  server CPU per activity: ${perActivity(acceptOnly.serverMicros)} to accept it, ${perActivity(drainUsed.user + drainUsed.system)} to drain its jobs (${acceptOnly.refused} refused)`,
    );
  } finally {
    await server.close();
    await remote.close();
  }
}

async function delivery(): Promise<void> {
  const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  const remotes: RemoteServer[] = [];
  try {
    const alice = await server.user("alice");
    for (let i = 0; i < 100; i++) remotes.push(await startRemoteServer());
    // 1,000 followers: 10 on each of 100 servers.
    const follows = remotes.flatMap((remote) =>
      Array.from({ length: 10 }, (_, j) => () => {
        const name = `follower${j}`;
        const follow = loadActivity("mastodon/follow", fill(server, remote, name));
        follow.id = `${remote.actor(name).id}#follows/alice`;
        return post(`${server.url}/users/alice/inbox`, follow, remote, name);
      }),
    );
    const refused = (await pool(follows, CONCURRENCY)).filter((s) => s !== 202).length;
    if (refused > 0) log(`  (${refused} follows were refused)`);
    await server.settle();
    const account = await server.get(`/api/v1/accounts/${alice.accountId}`, { token: alice.token });
    for (const remote of remotes) remote.deliveries.length = 0;

    const started = performance.now();
    const posted = await server.post("/api/v1/statuses", {
      token: alice.token,
      json: { status: "to all my followers" },
    });
    if (posted.status !== 200) throw new Error(posted.text);
    const arrived = () =>
      remotes.reduce((n, r) => n + r.deliveries.filter((d) => d.body.includes(posted.body.uri)).length, 0);
    const deadline = started + 60_000;
    while (arrived() < remotes.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const done = performance.now();
    await server.settle();
    const servers = remotes.filter((r) => r.deliveries.some((d) => d.body.includes(posted.body.uri))).length;
    log(`delivery: one post of an account with ${account.body.followers_count} followers on ${remotes.length} servers`);
    log(
      `  ${arrived()} deliveries reached ${servers} servers; the last ${((done - started) / 1000).toFixed(2)} s after the post`,
    );
  } finally {
    await server.close();
    for (const remote of remotes) await remote.close();
  }
}

if (PARTS.includes("ingest")) await ingest();
if (PARTS.includes("delivery")) await delivery();

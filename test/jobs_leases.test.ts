// Job leases: a worker does not poll while a job is under lease (its idle cost is about nothing),
// it releases the leases of a dead process of its host at once without counting an attempt, and it
// leaves a lease held elsewhere alone until it runs out.
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { after, before, test } from "node:test";
import type { KyselyPlugin } from "kysely";
import { newId } from "../src/domain/ids.ts";
import { type Dispatch, Queue } from "../src/jobs/queue.ts";
import { post } from "./fixtures.ts";
import { startServer, type TestServer } from "./rig.ts";
import { waitUntil } from "./wait.ts";

let server: TestServer;
before(async () => {
  server = await startServer({ worker: false });
});
after(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A queue of its own on the server's database, counting the statements it sends. */
function countingQueue() {
  const counter = { queries: 0 };
  // Counted as results come back: a statement only compiled, or built as a subquery, is not sent.
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      counter.queries++;
      return args.result;
    },
  };
  const db = server.rt.db.withPlugin(plugin);
  const queue = new Queue(db, server.rt.dialect, server.rt.config.databaseUrl, server.rt.bus, server.schema);
  return { queue, counter };
}

async function insertLeased(lockedBy: string, payload: unknown): Promise<string> {
  const id = newId();
  const now = new Date();
  await server.rt.db
    .insertInto("jobs")
    .values({
      id,
      type: "test.leased",
      payload: JSON.stringify(payload),
      run_at: now,
      attempts: 1,
      max_attempts: 8,
      locked_until: new Date(now.getTime() + 5 * 60_000),
      locked_by: lockedBy,
      last_error: null,
      failed_at: null,
      created_at: now,
    })
    .execute();
  return id;
}

const jobsLeft = async () => (await server.rt.db.selectFrom("jobs").select("id").execute()).map((j) => j.id);

test("a worker running a job, and one waiting on another's lease, send next to no statements", async () => {
  const { queue, counter } = countingQueue();
  let release!: () => void;
  const running = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started = 0;
  const dispatch: Dispatch = async () => {
    started++;
    await running;
  };
  await queue.start(dispatch);
  try {
    // Held by a live process elsewhere: not due until its lease ends in five minutes.
    const elsewhere = await insertLeased("another-host:1:feedface", {});
    await queue.enqueue("feeds.trim" as never, {} as never);
    await waitUntil("the worker to start the job", () => started > 0, { every: 20 });
    assert.equal(started, 1);
    const before = counter.queries;
    await sleep(3000);
    // The heartbeat that extends the running job's lease, and the poll (every 2 s on SQLite, 10 s
    // on PostgreSQL) with its claim; a worker that spun would send thousands.
    const spent = counter.queries - before;
    assert.ok(spent <= 8, `${spent} statements in 3 s`);
    release();
    await queue.idle();
    assert.deepEqual(await jobsLeft(), [elsewhere]);
  } finally {
    release();
    await queue.stop();
    await server.rt.db.deleteFrom("jobs").execute();
  }
});

test("the leases of a dead process on this host are released at once, without counting an attempt", async () => {
  const { queue } = countingQueue();
  // No process has an id this high (Linux's limit is 2^22).
  const dead = await insertLeased(`${hostname()}:999999999:deadbeef`, { n: 1 });
  const alive = await insertLeased(`${hostname()}:${process.ppid}:cafebabe`, { n: 2 });
  const attempts: number[] = [];
  await queue.start(async (_type, _payload, job) => {
    const row = await server.rt.db
      .selectFrom("jobs")
      .select("attempts")
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    attempts.push(row.attempts);
  });
  try {
    await waitUntil("the dead process's job to run and end", async () => !(await jobsLeft()).includes(dead), {
      every: 20,
    });
    assert.deepEqual(attempts, [1]);
    assert.deepEqual(await jobsLeft(), [alive]);
  } finally {
    await queue.stop();
    await server.rt.db.deleteFrom("jobs").execute();
  }
});

test("a busy worker takes the next job as it ends one: never more at once than its slots, each job once", async () => {
  const { queue, counter } = countingQueue();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push(await queue.enqueue("feeds.trim" as never, { i } as never));
  const ran: string[] = [];
  let running = 0;
  let most = 0;
  const before = counter.queries;
  await queue.start(
    async (_type, _payload, job) => {
      most = Math.max(most, ++running);
      await sleep(5);
      ran.push(job.id);
      running--;
    },
    { concurrency: 2 },
  );
  try {
    await queue.idle();
    assert.deepEqual(ran.toSorted(), ids.toSorted());
    assert.equal(most, 2);
    assert.deepEqual(await jobsLeft(), []);
    // On PostgreSQL one statement ends a job and claims the next (besides the start's and the last
    // claims; it was two, 60 or more in all). SQLite's statements are in-process and stay two.
    const spent = counter.queries - before;
    if (server.rt.dialect === "postgres") assert.ok(spent <= ids.length + 8, `${spent} statements for 30 jobs`);
  } finally {
    await queue.stop();
    await server.rt.db.deleteFrom("jobs").execute();
  }
});

test("without a worker, post() returns and settle() says at once that nothing runs the due jobs", async () => {
  const idle = await startServer({ worker: false });
  try {
    const alice = await idle.user("alice");
    const status = await post(idle, alice, "hello");
    assert.equal(status.content, "<p>hello</p>");
    await assert.rejects(idle.settle(), /not working them/);
  } finally {
    await idle.close();
  }
});

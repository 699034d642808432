// A real server process killed with SIGKILL in the middle of fanning out posts to 2,000 followers:
// after it starts again, every feed entry and notification gets there (the dead process's leases are
// released at once, not after running out), and the crash counts as no failed attempt.
// On PostgreSQL, the process also lives through every one of its connections being terminated.
// How long the restart and the effects take is measured by bench/faults.ts; here only that they happen.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import { TEST_DATABASE_URL } from "./rig.ts";
import { type ProcessServer, processServer, type Seeded, seedFollowers } from "./server_process.ts";
import { waitUntil } from "./wait.ts";

const FOLLOWERS = 2000;
/** One follower in this many asked to hear of each post. */
const SUBSCRIBER_EVERY = 50;
const POSTS = 5;

let server: ProcessServer;
let seeded: Seeded;

before(async () => {
  server = await processServer(TEST_DATABASE_URL);
  seeded = await seedFollowers(server.rt, FOLLOWERS, { subscriberEvery: SUBSCRIBER_EVERY });
  await server.start();
});
after(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function postAsPoster(text: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/statuses`, {
    method: "POST",
    headers: { authorization: `Bearer ${seeded.posterToken}`, "content-type": "application/json" },
    body: JSON.stringify({ status: text }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.id;
}

/** Whether every effect of `posted` is done: in every follower's feed and the poster's, subscribers told. */
async function effectsDone(posted: string[]): Promise<boolean> {
  const db = server.rt.db;
  const [entries] = await db
    .selectFrom("feed_entries")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("status_id", "in", posted)
    .execute();
  const [told] = await db
    .selectFrom("notifications")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("status_id", "in", posted)
    .where("type", "=", "status")
    .execute();
  return (
    Number(entries.n) === posted.length * (FOLLOWERS + 1) &&
    Number(told.n) === posted.length * (FOLLOWERS / SUBSCRIBER_EVERY)
  );
}

test("SIGKILL during fan-out: every effect is done after the restart", { timeout: 600_000 }, async (t) => {
  const posted: string[] = [];
  const heldLeases = () =>
    server.rt.db
      .selectFrom("jobs")
      .select(["id", "attempts", "locked_by"])
      .where("locked_until", ">", new Date())
      .execute();
  // The kill must come while the worker holds a job; a job may end between our look and the kill,
  // so a crash that caught none is let finish and the round is tried again.
  let leased: Awaited<ReturnType<typeof heldLeases>> = [];
  for (let round = 0; leased.length === 0; round++) {
    assert.ok(round < 5, "the dead process held leases");
    posted.length = 0;
    for (let i = 0; i < POSTS; i++) posted.push(await postAsPoster(`Post ${i} of round ${round} before the crash`));
    await waitUntil("the worker to take a job", async () => (await heldLeases()).length > 0, { every: 2 });
    await server.kill();
    assert.equal(await effectsDone(posted), false, "the fan-out was still under way at the crash");
    // Whatever the dead process held, even a lease a slow heartbeat let lapse meanwhile.
    leased = await server.rt.db
      .selectFrom("jobs")
      .select(["id", "attempts", "locked_by"])
      .where("locked_by", "is not", null)
      .execute();
    if (leased.length > 0) break;
    await server.start();
    await waitUntil("the effects of an uninterrupted round", () => effectsDone(posted));
  }

  // The dead process's leases now run for an hour: the effects can only be done after the restart
  // if it releases them at once rather than waiting for them to run out.
  await server.rt.db
    .updateTable("jobs")
    .set({ locked_until: new Date(Date.now() + 3_600_000) })
    .where("locked_by", "is not", null)
    .execute();
  const startup = await server.start();
  const restarted = Date.now();
  await waitUntil("the effects after the restart", () => effectsDone(posted));
  t.diagnostic(
    `${leased.length} jobs leased at the crash; restart ${startup} ms, effects done ${Date.now() - restarted} ms later`,
  );
  // The claims the crash interrupted were not counted as attempts: those jobs ran once, and are gone.
  const failed = await server.rt.db
    .selectFrom("jobs")
    .select(["type", "attempts", "last_error"])
    .where("last_error", "is not", null)
    .execute();
  assert.deepEqual(failed, []);
});

test("PostgreSQL: every connection of the process terminated again and again, it lives on and answers", {
  skip: !TEST_DATABASE_URL && "PostgreSQL only",
  timeout: 600_000,
}, async () => {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await admin.connect();
  try {
    for (let i = 0; i < 5; i++) {
      await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1", [
        server.applicationName,
      ]);
      await fetch(`${server.url}/api/v1/timelines/home`, {
        headers: { authorization: `Bearer ${seeded.posterToken}` },
      });
      await sleep(200);
    }
  } finally {
    await admin.end();
  }
  await waitUntil("the process to answer again", async () => {
    assert.ok(server.alive(), "the process exited");
    const res = await fetch(`${server.url}/api/v1/timelines/home`, {
      headers: { authorization: `Bearer ${seeded.posterToken}` },
    });
    if (res.status === 200) return true;
    assert.equal(res.status, 503);
    return false;
  });
  // Its worker works again: a post reaches every feed.
  const id = await postAsPoster("after the connections went");
  await waitUntil("the fan-out after reconnecting", () => effectsDone([id]));
  assert.ok(server.alive());
});

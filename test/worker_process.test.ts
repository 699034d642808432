// `rookery worker` alone works jobs until it is told to stop. On SQLite it used to end as soon as
// it started: with no HTTP listener and its timers unref'd, nothing held its event loop open.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { TEST_DATABASE_URL } from "./rig.ts";
import { type ProcessServer, processServer } from "./server_process.ts";
import { waitUntil } from "./wait.ts";

let worker: ProcessServer;
before(async () => {
  worker = await processServer(TEST_DATABASE_URL, {}, "worker");
});
after(() => worker.close());

test("a worker process runs the jobs it finds and keeps running", async () => {
  // A fan-out of a status that does not exist: it succeeds and leaves nothing but its deletion.
  const id = await worker.rt.queue.enqueue("feeds.fanout", { statusId: "1" });
  await worker.start();
  const pending = () => worker.rt.db.selectFrom("jobs").select("id").where("id", "=", id).executeTakeFirst();
  await waitUntil("the job to run", async () => (await pending()) === undefined);
  // Idle now, and still there.
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(worker.alive(), true);
});

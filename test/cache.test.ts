// The per-process caches of computed answers: a value computed while its key was invalidated is
// not kept, since it may have been read before the change it was invalidated for.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { cached, invalidate } from "../src/services/cache.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test("a value computed across an invalidation is returned but not kept", async () => {
  let computed = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slow = cached(server.rt, "test:a", 60_000, async () => {
    computed++;
    await gate;
    return "before the change";
  });
  await invalidate(server.rt, "test:");
  release();
  assert.equal(await slow, "before the change");
  assert.equal(
    await cached(server.rt, "test:a", 60_000, async () => `computed again (${++computed})`),
    "computed again (2)",
  );
  assert.equal(await cached(server.rt, "test:a", 60_000, async () => "not asked"), "computed again (2)");
});

test("invalidating a prefix leaves other keys cached", async () => {
  await cached(server.rt, "one:x", 60_000, async () => 1);
  await cached(server.rt, "two:x", 60_000, async () => 2);
  await invalidate(server.rt, "one:");
  assert.equal(await cached(server.rt, "one:x", 60_000, async () => 10), 10);
  assert.equal(await cached(server.rt, "two:x", 60_000, async () => 20), 2);
});

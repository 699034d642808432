// The process's image slots: one per core, counted across threads, and given back when a thread
// that held one ends in the middle of an image.
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { imageSlotsFor, releaseImageSlots, withImageSlot } from "../src/media/image_slots.ts";

const cores = availableParallelism();

test("no more images at once than cores, every one done in the end", async () => {
  let running = 0;
  let most = 0;
  const done = await Promise.all(
    Array.from({ length: cores * 3 }, (_, i) =>
      withImageSlot(async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return i;
      }),
    ),
  );
  assert.equal(most, cores);
  assert.deepEqual(
    done,
    Array.from({ length: cores * 3 }, (_, i) => i),
  );
});

test("a thread that ends while it holds every slot gives them back", async () => {
  const slots = imageSlotsFor();
  const module = new URL("../src/media/image_slots.ts", import.meta.url).href;
  // The thread takes every slot, says so, and is ended without giving any back.
  const thread = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
     import(${JSON.stringify(module)}).then(({ useImageSlots, withImageSlot }) => {
       useImageSlots(workerData);
       for (let i = 0; i < ${cores}; i++) withImageSlot(() => new Promise(() => parentPort.postMessage("holding")));
     });`,
    { eval: true, workerData: slots },
  );
  let holding = 0;
  await new Promise<void>((resolve) =>
    thread.on("message", () => {
      if (++holding === cores) resolve();
    }),
  );
  let ran = false;
  const waiting = withImageSlot(async () => {
    ran = true;
  });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(ran, false);
  await thread.terminate();
  releaseImageSlots(slots);
  await waiting;
  assert.equal(ran, true);
});

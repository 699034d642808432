import assert from "node:assert/strict";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { idAt, idFloor, idTime, isId, newId } from "../src/domain/ids.ts";

test("ids are decimal strings that strictly increase within a process", () => {
  const ids = Array.from({ length: 5000 }, () => newId());
  for (let i = 1; i < ids.length; i++) assert.ok(BigInt(ids[i]) > BigInt(ids[i - 1]), `${ids[i]} > ${ids[i - 1]}`);
  assert.equal(new Set(ids).size, 5000);
  assert.match(ids[0], /^[1-9][0-9]{17,18}$/);
});

test("twenty threads making ids at once: every id distinct, one tag per thread (web threads insert concurrently)", async () => {
  const threads = 20;
  const perThread = 2000;
  const tagOf = (id: string) => Number((BigInt(id) >> 10n) & 63n);
  const mine = newId();
  const code = `
    const { parentPort } = require("node:worker_threads");
    import(${JSON.stringify(new URL("../src/domain/ids.ts", import.meta.url).href)}).then(({ newId }) => {
      const ids = [];
      for (let i = 0; i < ${perThread}; i++) ids.push(newId());
      parentPort.postMessage(ids);
    });`;
  const batches = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<string[]>((resolve, reject) => {
          const worker = new Worker(code, { eval: true });
          worker.once("message", (ids: string[]) => {
            resolve(ids);
            void worker.terminate();
          });
          worker.once("error", reject);
        }),
    ),
  );
  assert.equal(new Set(batches.flat()).size, threads * perThread);
  assert.equal(new Set([tagOf(mine), ...batches.map((ids) => tagOf(ids[0]))]).size, threads + 1);
  for (const ids of batches) assert.equal(new Set(ids.map(tagOf)).size, 1);
});

test("a millisecond's sequence starts at a random place, so processes of one tag rarely meet", async () => {
  const starts: number[] = [];
  let lastMs = 0;
  while (starts.length < 20) {
    const id = BigInt(newId());
    const ms = Number(id >> 16n);
    if (ms !== lastMs) starts.push(Number(id & 1023n));
    lastMs = ms;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  assert.ok(new Set(starts).size > 1, `first sequences of 20 milliseconds: ${starts.join(", ")}`);
  for (const start of starts) assert.ok(start < 512, `${start} leaves room for 512 ids`);
});

test("an id carries its creation time in its high bits", () => {
  const before = Date.now();
  const id = newId();
  const t = idTime(id).getTime();
  assert.ok(t >= before - 1 && t <= Date.now() + 2, `${t} near ${before}`);
  const past = new Date("2020-05-01T12:00:00.000Z");
  assert.equal(idTime(idAt(past)).toISOString(), "2020-05-01T12:00:00.000Z");
  assert.equal(idFloor(past), (BigInt(past.getTime()) << 16n).toString());
  assert.ok(BigInt(idAt(past)) >= BigInt(idFloor(past)));
});

test("isId accepts only positive 64-bit decimal strings", () => {
  assert.equal(isId("109876543210987654"), true);
  assert.equal(isId("9223372036854775807"), true);
  assert.equal(isId("9223372036854775808"), false);
  assert.equal(isId("0"), false);
  assert.equal(isId("-5"), false);
  assert.equal(isId("12a"), false);
  assert.equal(isId(""), false);
  assert.equal(isId(123), false);
});

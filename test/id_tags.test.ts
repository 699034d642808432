// Processes started separately on one database (`rookery web` ×N, `rookery worker` ×M) each claim
// their own block of id tags, so that ids they make in the same millisecond differ.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { ID_TAGS, idTag } from "../src/domain/ids.ts";
import { startServer, type TestServer } from "./rig.ts";

const BLOCK = 3;
const PER_PROCESS = 50_000;

/**
 * A process that opens a runtime on the server's database, claiming BLOCK tags, says its tag,
 * then makes PER_PROCESS ids when told to and prints them.
 */
const PROCESS = `
  import { createInterface } from "node:readline";
  const { loadConfig } = await import(${JSON.stringify(new URL("../src/config.ts", import.meta.url).href)});
  const { createRuntime } = await import(${JSON.stringify(new URL("../src/runtime.ts", import.meta.url).href)});
  const { idTag, newId } = await import(${JSON.stringify(new URL("../src/domain/ids.ts", import.meta.url).href)});
  const rt = await createRuntime(loadConfig(JSON.parse(process.env.TEST_ENV)), {
    schema: process.env.TEST_SCHEMA || undefined, poolSize: 1, migrate: false, idTags: ${BLOCK},
  });
  const lines = createInterface({ input: process.stdin });
  console.log(JSON.stringify({ tag: idTag() }));
  for await (const _ of lines) {
    const ids = [];
    for (let i = 0; i < ${PER_PROCESS}; i++) ids.push(newId());
    console.log(JSON.stringify({ ids }));
    break;
  }
  await rt.close();
`;

let server: TestServer;
const children: ChildProcess[] = [];

before(async () => {
  server = await startServer({ worker: false });
});

after(async () => {
  for (const child of children) if (child.exitCode === null) child.kill();
  await server.close();
});

/** Starts a process; resolves with the lines it prints, one at a time. */
function startProcess() {
  const { config } = server.rt;
  const env = {
    LOCAL_DOMAIN: config.localDomain,
    DATABASE_URL: config.databaseUrl,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    DATA_DIR: config.dataDir,
    LOG_LEVEL: "silent",
  };
  const child = spawn(process.execPath, ["--input-type=module", "-e", PROCESS], {
    env: { ...process.env, TEST_ENV: JSON.stringify(env), TEST_SCHEMA: server.schema ?? "" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    child,
    async next<T>(): Promise<T> {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the process ended (exit code ${child.exitCode})`);
      return JSON.parse(value) as T;
    },
  };
}

const blockOf = (first: number, size: number) => Array.from({ length: size }, (_, i) => (first + i) % ID_TAGS);

test("two processes started on one database claim disjoint blocks of tags, and the ids they make at once never meet", async () => {
  const a = startProcess();
  const b = startProcess();
  const [{ tag: tagA }, { tag: tagB }] = await Promise.all([a.next<{ tag: number }>(), b.next<{ tag: number }>()]);
  // The test's own process claimed one tag as its server started.
  const claimed = [...blockOf(tagA, BLOCK), ...blockOf(tagB, BLOCK), idTag()];
  assert.equal(new Set(claimed).size, 2 * BLOCK + 1, `blocks from ${tagA} and ${tagB}, and ${idTag()}`);

  a.child.stdin!.write("go\n");
  b.child.stdin!.write("go\n");
  const [{ ids: idsA }, { ids: idsB }] = await Promise.all([a.next<{ ids: string[] }>(), b.next<{ ids: string[] }>()]);
  const tagOf = (id: string) => Number((BigInt(id) >> 10n) & 63n);
  assert.deepEqual(new Set(idsA.map(tagOf)), new Set([tagA]));
  assert.deepEqual(new Set(idsB.map(tagOf)), new Set([tagB]));
  assert.equal(new Set([...idsA, ...idsB]).size, 2 * PER_PROCESS);
});

test("the tags are handed out in turn: the next process's block follows the last", async () => {
  const first = startProcess();
  const { tag } = await first.next<{ tag: number }>();
  const second = startProcess();
  const { tag: next } = await second.next<{ tag: number }>();
  assert.equal(next, (tag + BLOCK) % ID_TAGS);
  for (const p of [first, second]) p.child.stdin!.end();
});

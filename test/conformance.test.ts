// The schema check itself: without the API reference it fails in CI and is skipped elsewhere, saying
// why; with it, it holds entities to Mastodon's schemas.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { assertEntity, OPENAPI } from "./conformance.ts";

/** Runs assertEntity on `value` in a process of its own, with `env` (the reference is read once per process). */
function check(env: Record<string, string>, value: unknown) {
  const script = `
    import { assertEntity } from ${JSON.stringify(new URL("./conformance.ts", import.meta.url).href)};
    assertEntity({ diagnostic: (m) => console.log(m) }, "Tag", ${JSON.stringify(value)});
    console.log("passed");`;
  const { CI: _, MASTODON_API_DIR: __, ...inherited } = process.env;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...inherited, ...env },
    encoding: "utf8",
  });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

const tag = { id: "1", name: "birds", url: "https://example.test/tags/birds", history: [] };
const missing = { MASTODON_API_DIR: "/nonexistent/mastodon-api" };

test("without the reference, CI fails the check and says what is missing", () => {
  const run = check({ ...missing, CI: "true" }, tag);
  assert.equal(run.status, 1);
  assert.match(run.err, /the Tag schema check needs \/nonexistent\/mastodon-api\/openapi\.json, which is missing/);
  assert.doesNotMatch(run.out, /passed/);
});

test("without the reference, elsewhere the check is skipped with the reason", () => {
  for (const CI of ["", "false", "0"]) {
    const run = check({ ...missing, CI }, tag);
    assert.equal(run.status, 0, run.err);
    assert.match(
      run.out,
      /^skipped: the Tag schema check needs \/nonexistent\/mastodon-api\/openapi\.json, which is missing/,
    );
    assert.match(run.out, /passed/);
  }
});

test("with the reference, a valid entity passes and an invalid one fails", (t) => {
  assertEntity(t, "Tag", tag);
  if (!existsSync(OPENAPI)) return;
  assert.throws(() => assertEntity(t, "Tag", { ...tag, name: 5 }), /Tag does not match Mastodon's schema/);
  assert.throws(() => assertEntity(t, "Nonsense", tag), /no schema named Nonsense/);
});

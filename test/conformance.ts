// Checks entities against Mastodon's published schemas: openapi.json in the API reference, which is
// ../shared/mastodon-api beside the repository (or the folder MASTODON_API_DIR names). CI must run
// the check, so there a missing reference fails the test; elsewhere the check is skipped, and the
// test says so.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

const REFERENCE = process.env.MASTODON_API_DIR || fileURLToPath(new URL("../../shared/mastodon-api/", import.meta.url));
export const OPENAPI = join(REFERENCE, "openapi.json");

/** Whether this run is CI's (`CI=true`, as CI services set it). */
function inCi(): boolean {
  return !!process.env.CI && !/^(0|false|no)$/i.test(process.env.CI);
}

let ajv: Ajv2020 | null | undefined;

function load(): Ajv2020 | null {
  if (ajv !== undefined) return ajv;
  if (!existsSync(OPENAPI)) {
    ajv = null;
    return ajv;
  }
  const spec = JSON.parse(readFileSync(OPENAPI, "utf8"));
  // Status.quote is "one of" Quote and ShallowQuote, but the two need only `state`: every quote
  // Mastodon writes matches both, so the choice is read as "any of".
  const quote = spec.components?.schemas?.Status?.properties?.quote;
  if (quote?.oneOf) {
    quote.anyOf = quote.oneOf;
    delete quote.oneOf;
  }
  ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "mastodon", components: spec.components });
  return ajv;
}

/** Asserts that `value` is a valid Mastodon `entity` (e.g. "Account", "Status"). */
export function assertEntity(t: TestContext, entity: string, value: unknown): void {
  const validator = load();
  if (!validator) {
    const missing = `the ${entity} schema check needs ${OPENAPI}, which is missing`;
    if (inCi()) assert.fail(`${missing} (CI must run it: put the API reference there or name it in MASTODON_API_DIR)`);
    t.diagnostic(`skipped: ${missing} (set MASTODON_API_DIR to the API reference to run it)`);
    return;
  }
  const validate = validator.getSchema(`mastodon#/components/schemas/${entity}`);
  assert.ok(validate, `no schema named ${entity}`);
  const ok = validate(value);
  assert.ok(ok, `${entity} does not match Mastodon's schema: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
}

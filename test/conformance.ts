// Checks entities against Mastodon's published schemas (../shared/mastodon-api/openapi.json beside
// the repository). Where that file is absent the check is skipped, and the test says so.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

const OPENAPI = fileURLToPath(new URL("../../shared/mastodon-api/openapi.json", import.meta.url));

let ajv: Ajv2020 | null | undefined;

function load(): Ajv2020 | null {
  if (ajv !== undefined) return ajv;
  if (!existsSync(OPENAPI)) {
    ajv = null;
    return ajv;
  }
  const spec = JSON.parse(readFileSync(OPENAPI, "utf8"));
  ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "mastodon", components: spec.components });
  return ajv;
}

/** Asserts that `value` is a valid Mastodon `entity` (e.g. "Account", "Status"). */
export function assertEntity(t: TestContext, entity: string, value: unknown): void {
  const validator = load();
  if (!validator) {
    t.diagnostic(`skipped: the ${entity} schema check needs ../shared/mastodon-api/openapi.json`);
    return;
  }
  const validate = validator.getSchema(`mastodon#/components/schemas/${entity}`);
  assert.ok(validate, `no schema named ${entity}`);
  const ok = validate(value);
  assert.ok(ok, `${entity} does not match Mastodon's schema: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
}

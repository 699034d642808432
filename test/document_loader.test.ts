// Documents fetched from other servers are bounded as deliveries are: a document nested deeper
// than MAX_DOCUMENT_DEPTH is refused before it is parsed (JSON-LD expansion would recurse at every
// level of it).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { documentLoaderFactory, MAX_DOCUMENT_DEPTH } from "../src/federation/document_loader.ts";

/** A Note whose `inReplyTo` nests `levels` objects in all. */
function nested(levels: number): Record<string, unknown> {
  let note: Record<string, unknown> = { type: "Note", id: "https://remote.test/notes/0" };
  for (let i = 1; i < levels; i++) note = { type: "Note", id: `https://remote.test/notes/${i}`, inReplyTo: note };
  return { "@context": "https://www.w3.org/ns/activitystreams", ...note };
}

const server = createServer((req, res) => {
  const levels = Number(new URL(req.url ?? "/", "http://x").searchParams.get("levels"));
  res.writeHead(200, { "content-type": "application/activity+json" });
  res.end(JSON.stringify(nested(levels)));
});
let origin = "";
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

test("a fetched document nested deeper than the bound is refused; one at the bound is read", async () => {
  const config = loadConfig({
    LOCAL_DOMAIN: "local.test",
    SECRET_KEY_BASE: "x".repeat(64),
    DATA_DIR: "/nonexistent",
    ALLOW_PRIVATE_ADDRESSES: "true",
  });
  const load = documentLoaderFactory(config)({});
  assert.equal(MAX_DOCUMENT_DEPTH, 32);
  const read = await load(`${origin}/notes?levels=${MAX_DOCUMENT_DEPTH}`);
  assert.equal((read.document as { id: string }).id, `https://remote.test/notes/${MAX_DOCUMENT_DEPTH - 1}`);
  await assert.rejects(load(`${origin}/notes?levels=${MAX_DOCUMENT_DEPTH + 1}`), /nested deeper than 32 levels/);
  await assert.rejects(load(`${origin}/notes?levels=1000`), /nested deeper than 32 levels/);
});

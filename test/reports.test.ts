// Reporting an account to the moderators, and the admin.report notification they get.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addRule } from "../src/services/instance/rules.ts";
import { assertEntity } from "./conformance.ts";
import { post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let reporter: TestUser;
let target: TestUser;
let moderator: TestUser;
before(async () => {
  server = await startServer();
  reporter = await server.user("reporter");
  target = await server.user("target");
  moderator = await server.user("mod", { role: "moderator" });
});
after(() => server.close());

test("a report keeps the target's statuses and cited rules, and notifies the moderators", async (t) => {
  const rule = await addRule(server.rt, "Be kind");
  const bad = (await post(server, target, "something rude")).id;
  const res = await server.post("/api/v1/reports", {
    token: reporter.token,
    form: {
      account_id: target.accountId,
      "status_ids[]": [bad, bad],
      "rule_ids[]": [rule.id],
      comment: "Not nice",
      category: "other",
    },
  });
  assert.equal(res.status, 200, res.text);
  assertEntity(t, "Report", res.body);
  assert.deepEqual(
    { ...res.body, id: undefined, created_at: undefined, target_account: res.body.target_account.id },
    {
      id: undefined,
      created_at: undefined,
      action_taken: false,
      action_taken_at: null,
      category: "violation",
      comment: "Not nice",
      forwarded: false,
      status_ids: [bad],
      rule_ids: [rule.id],
      target_account: target.accountId,
    },
  );

  const news = await server.get("/api/v1/notifications", { token: moderator.token });
  assert.deepEqual(
    news.body.map((n: any) => [n.type, n.account.id, n.report.id, n.report.target_account.id]),
    [["admin.report", reporter.accountId, res.body.id, target.accountId]],
  );
  const grouped = await server.get("/api/v2/notifications", { token: moderator.token });
  assert.equal(grouped.body.notification_groups[0].type, "admin.report");
  assert.equal(grouped.body.notification_groups[0].report.id, res.body.id);
  assert.deepEqual((await server.get("/api/v1/notifications", { token: target.token })).body, []);
});

test("bad reports are refused with Mastodon's errors", async () => {
  const send = (form: Record<string, string | string[]>, token = reporter.token) =>
    server.post("/api/v1/reports", { token, form });
  assert.equal((await send({})).status, 404);
  assert.equal((await send({ account_id: "123456789" })).status, 404);
  const category = await send({ account_id: target.accountId, category: "rude" });
  assert.deepEqual([category.status, category.body.details.category[0].error], [422, "ERR_INCLUSION"]);
  const long = await send({ account_id: target.accountId, comment: "x".repeat(1001) });
  assert.deepEqual([long.status, long.body.details.comment[0].error], [422, "ERR_TOO_LONG"]);
  const rules = await send({ account_id: target.accountId, "rule_ids[]": ["999"] });
  assert.equal(rules.status, 422);
  const plain = await send({ account_id: target.accountId });
  assert.deepEqual([plain.status, plain.body.category, plain.body.comment], [200, "other", ""]);
  const readOnly = await server.user("readonly", { scopes: ["read"] });
  const before = await countReports();
  // A cited status must be the target's and one the reporter may see, as Mastodon finds them: else 404.
  const theirs = (await post(server, target, "fine words")).id;
  const mine = (await post(server, reporter, "my own post")).id;
  const hidden = (await post(server, target, { status: "for my followers", visibility: "private" })).id;
  for (const cited of [[theirs, mine], [theirs, "123456789"], [theirs, "abc"], [hidden]]) {
    const res = await send({ account_id: target.accountId, "status_ids[]": cited });
    assert.deepEqual([res.status, res.body], [404, { error: "Record not found" }], cited.join());
  }
  assert.equal(await countReports(), before, "nothing written");
  // A report often follows a block: the reporter's block hides nothing from it.
  await server.post(`/api/v1/accounts/${target.accountId}/block`, { token: reporter.token });
  const afterBlock = await send({ account_id: target.accountId, "status_ids[]": [theirs] });
  assert.deepEqual([afterBlock.status, afterBlock.body.status_ids], [200, [theirs]]);
  // The target's block of the reporter hides their statuses from the reporter, as in Mastodon.
  const blocked = await server.user("blockedreporter");
  await server.post(`/api/v1/accounts/${blocked.accountId}/block`, { token: target.token });
  const refused = await send({ account_id: target.accountId, "status_ids[]": [theirs] }, blocked.token);
  assert.equal(refused.status, 404);
  assert.equal((await send({ account_id: target.accountId }, readOnly.token)).status, 403);
});

async function countReports(): Promise<number> {
  const row = await server.rt.db
    .selectFrom("reports")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// Moderating reports through the admin API: listing, reading a report with the statuses it cites
// (deleted ones too), taking it on, changing it, resolving and reopening it; and who may do so.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addRule } from "../src/services/instance/rules.ts";
import { assertEntity } from "./conformance.ts";
import { follow, post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let reporter: TestUser;
let target: TestUser;
let moderator: TestUser;
let reportId: string;
let deletedId: string;
let privateId: string;

const ADMIN_SCOPES = ["read", "write", "admin:read", "admin:write"];

before(async () => {
  server = await startServer();
  reporter = await server.user("reporter");
  target = await server.user("target");
  moderator = await server.user("mod", { role: "moderator", scopes: ADMIN_SCOPES });
  // A report cites only what the reporter may see: the private status, as a follower.
  assert.equal((await follow(server, reporter, target)).following, true);
  deletedId = (await post(server, target, "something rude, soon deleted")).id;
  privateId = (await post(server, target, { status: "something rude for followers", visibility: "private" })).id;
  const res = await server.post("/api/v1/reports", {
    token: reporter.token,
    json: {
      account_id: target.accountId,
      status_ids: [deletedId, privateId],
      comment: "Please look",
      category: "spam",
    },
  });
  assert.equal(res.status, 200, res.text);
  reportId = res.body.id;
  assert.equal((await server.delete(`/api/v1/statuses/${deletedId}`, { token: target.token })).status, 200);
});
after(() => server.close());

const asModerator = (method: "GET" | "POST" | "PUT", path: string, json?: Record<string, unknown>) =>
  server.request(method, path, { token: moderator.token, json });

test("a moderator reads the report, with the deleted status it cites still there", async (t) => {
  // Gone for everyone else.
  assert.equal((await server.get(`/api/v1/statuses/${deletedId}`, { token: reporter.token })).status, 404);

  const list = await asModerator("GET", "/api/v1/admin/reports");
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(
    list.body.map((r: any) => r.id),
    [reportId],
  );
  const report = (await asModerator("GET", `/api/v1/admin/reports/${reportId}`)).body;
  assertEntity(t, "AdminReport", report);
  assertEntity(t, "AdminAccount", report.target_account);
  assert.deepEqual(
    {
      action_taken: report.action_taken,
      category: report.category,
      comment: report.comment,
      reporter: report.account.id,
      reporterEmail: report.account.email,
      target: report.target_account.id,
      targetUsername: report.target_account.account.username,
      role: report.target_account.role.name,
      assigned: report.assigned_account,
      statuses: report.statuses.map((s: any) => [s.id, s.visibility, s.content]),
    },
    {
      action_taken: false,
      category: "spam",
      comment: "Please look",
      reporter: reporter.accountId,
      reporterEmail: "reporter@example.test",
      target: target.accountId,
      targetUsername: "target",
      role: "",
      assigned: null,
      statuses: [
        [deletedId, "public", "<p>something rude, soon deleted</p>"],
        [privateId, "private", "<p>something rude for followers</p>"],
      ],
    },
  );
});

test("taking a report on, changing it, resolving and reopening it", async () => {
  const assigned = await asModerator("POST", `/api/v1/admin/reports/${reportId}/assign_to_self`);
  assert.equal(assigned.status, 200, assigned.text);
  assert.equal(assigned.body.assigned_account.id, moderator.accountId);
  const unassigned = await asModerator("POST", `/api/v1/admin/reports/${reportId}/unassign`);
  assert.equal(unassigned.body.assigned_account, null);

  const rule = await addRule(server.rt, "No spam");
  const cited = await asModerator("PUT", `/api/v1/admin/reports/${reportId}`, { rule_ids: [rule.id] });
  assert.deepEqual([cited.body.category, cited.body.rules.map((r: any) => r.text)], ["violation", ["No spam"]]);
  const other = await asModerator("PUT", `/api/v1/admin/reports/${reportId}`, { category: "other" });
  assert.equal(other.body.category, "other");
  const wrong = await asModerator("PUT", `/api/v1/admin/reports/${reportId}`, { category: "rude" });
  assert.deepEqual([wrong.status, wrong.body.details.category[0].error], [422, "ERR_INCLUSION"]);

  const resolved = await asModerator("POST", `/api/v1/admin/reports/${reportId}/resolve`);
  assert.deepEqual(
    [resolved.body.action_taken, resolved.body.action_taken_by_account.id, typeof resolved.body.action_taken_at],
    [true, moderator.accountId, "string"],
  );
  assert.deepEqual((await asModerator("GET", "/api/v1/admin/reports")).body, []);
  const done = await asModerator("GET", "/api/v1/admin/reports?resolved=true");
  assert.deepEqual(
    done.body.map((r: any) => r.id),
    [reportId],
  );
  const byReporter = await asModerator("GET", `/api/v1/admin/reports?resolved=true&account_id=${target.accountId}`);
  assert.deepEqual(byReporter.body, []);

  const reopened = await asModerator("POST", `/api/v1/admin/reports/${reportId}/reopen`);
  assert.deepEqual(
    [reopened.body.action_taken, reopened.body.action_taken_at, reopened.body.action_taken_by_account],
    [false, null, null],
  );
  const open = await asModerator("GET", `/api/v1/admin/reports?target_account_id=${target.accountId}`);
  assert.deepEqual(
    open.body.map((r: any) => r.id),
    [reportId],
  );
});

test("only staff who manage reports, with admin scopes, may use the admin API", async () => {
  const user = await server.user("curious", { scopes: ADMIN_SCOPES });
  const denied = await server.get("/api/v1/admin/reports", { token: user.token });
  assert.deepEqual([denied.status, denied.body], [403, { error: "This action is not allowed" }]);
  const resolve = await server.post(`/api/v1/admin/reports/${reportId}/resolve`, { token: user.token });
  assert.equal(resolve.status, 403);

  const plainModerator = await server.user("mod2", { role: "moderator" });
  const scoped = await server.get("/api/v1/admin/reports", { token: plainModerator.token });
  assert.deepEqual([scoped.status, scoped.body.error], [403, "This action is outside the authorized scopes"]);
  assert.equal((await server.get("/api/v1/admin/reports")).status, 401);

  assert.equal((await asModerator("GET", "/api/v1/admin/reports/123456789")).status, 404);
  assert.equal((await asModerator("POST", "/api/v1/admin/reports/nope/resolve")).status, 404);
});

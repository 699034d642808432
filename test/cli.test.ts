// The operator commands, run as an operator runs them: a process on the default SQLite database.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test as nodeTest } from "node:test";
import { promisify } from "node:util";
import { dialectUnderTest } from "./rig.ts";

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "rookery-cli-"));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", DATABASE_URL: "" };
const rookery = (...args: string[]) => run(process.execPath, ["src/main.ts", ...args], { env });

after(() => rmSync(dataDir, { recursive: true, force: true }));

// The commands run on the default SQLite database; the PostgreSQL pass of the suite skips them.
const test = dialectUnderTest === "sqlite" ? nodeTest : nodeTest.skip;

test("--help lists the commands; a wrong one fails with usage", async () => {
  const help = await rookery("--help");
  assert.match(help.stdout, /accounts +Create, approve, change, delete, list and move local accounts/);
  assert.match(help.stdout, /rookery db migrate/);
  await assert.rejects(
    rookery("nonsense"),
    (e: { code: number; stderr: string }) => e.code === 2 && /Unknown command/.test(e.stderr),
  );
  await assert.rejects(
    rookery("accounts", "move", "owner"),
    (e: { code: number; stderr: string }) => e.code === 2 && /Give the account to move to/.test(e.stderr),
  );
});

test("db migrate, then accounts create, approve, modify and list", async () => {
  const migrated = await rookery("db", "migrate");
  assert.match(migrated.stdout, /Applied: 0001_core/);
  assert.match((await rookery("db", "migrate")).stdout, /up to date/);

  const created = await rookery(
    "accounts",
    "create",
    "owner",
    "--email",
    "owner@example.test",
    "--role",
    "owner",
    "--confirmed",
  );
  assert.match(created.stdout, /^Created @owner\. Password: [\w-]{24}\n$/);
  const pending = await rookery("accounts", "create", "later", "--email", "later@example.test");
  assert.match(pending.stdout, /Created @later/);
  assert.match(
    pending.stdout,
    /\nIt awaits approval, as sign-ups do on this server: approve it with `rookery accounts approve later`, or in the web admin at http:\/\/\S+\/admin\/accounts\.\n$/,
  );
  assert.doesNotMatch(created.stdout, /awaits approval/, "staff need no approval");
  let list = (await rookery("accounts", "list")).stdout;
  assert.match(list, /@owner\towner@example\.test\tOwner, confirmed, approved/);
  assert.match(list, /@later\tlater@example\.test\tuser, unconfirmed, pending/);

  await rookery("accounts", "approve", "later");
  await rookery("accounts", "modify", "later", "--confirm", "--role", "moderator", "--disable");
  list = (await rookery("accounts", "list")).stdout;
  assert.match(list, /@later\tlater@example\.test\tModerator, confirmed, approved, disabled/);
  const reset = await rookery("accounts", "modify", "later", "--reset-password", "--disable-2fa");
  assert.match(reset.stdout, /^Updated @later\. New password: [\w-]{24}\n$/);

  await assert.rejects(rookery("accounts", "approve", "ghost"), (e: { stderr: string }) =>
    /No such local account/.test(e.stderr),
  );
  await assert.rejects(rookery("accounts", "modify", "later", "--role", "king"), (e: { code: number }) => e.code === 2);
  assert.match((await rookery("accounts", "role", "later", "ADMIN")).stdout, /@later now has the role ADMIN/);
  assert.match((await rookery("accounts", "list")).stdout, /@later\tlater@example\.test\tAdmin, /);
  await assert.rejects(
    rookery("accounts", "role", "later", "king"),
    (e: { code: number; stderr: string }) => e.code === 2 && /No such role: king/.test(e.stderr),
  );
  await assert.rejects(rookery("accounts", "create", "owner", "--email", "x@example.test"), (e: { stderr: string }) =>
    /Username has already been taken/.test(e.stderr),
  );
});

test("a wrong setting stops the command with one line naming it", async () => {
  await assert.rejects(
    run(process.execPath, ["src/main.ts", "db", "migrate"], { env: { ...env, PORT: "eighty" } }),
    (e: { code: number; stderr: string }) =>
      e.code === 78 && e.stderr.trim() === 'Configuration error: PORT="eighty": must be a whole number',
  );
});

test("rules, domains and site texts from the command line", async () => {
  const added = await rookery("rules", "add", "Be kind", "--hint", "Always");
  const id = /Added rule (\d+)\./.exec(added.stdout)![1];
  assert.match((await rookery("rules", "list")).stdout, new RegExp(`^${id}\\tBe kind\\t\\(Always\\)\\n$`));
  await rookery("rules", "remove", id);
  assert.equal((await rookery("rules", "list")).stdout, "");

  await rookery(
    "domains",
    "block",
    "spam.example",
    "--severity",
    "silence",
    "--reject-media",
    "--public-comment",
    "Spam",
  );
  assert.equal((await rookery("domains", "list")).stdout, "spam.example\tsilence, reject media\tSpam\n");
  await assert.rejects(
    rookery("domains", "block", "x.example", "--severity", "nuke"),
    (e: { code: number }) => e.code === 2,
  );
  await rookery("domains", "unblock", "spam.example");
  assert.equal((await rookery("domains", "list")).stdout, "");
  assert.equal((await rookery("domains", "allow", "Friends.Example")).stdout, "Allowed friends.example.\n");
  await rookery("domains", "allow", "127.0.0.1:4000");
  assert.equal((await rookery("domains", "allowed")).stdout, "127.0.0.1:4000\nfriends.example\n");
  await rookery("domains", "disallow", "friends.example");
  assert.equal((await rookery("domains", "allowed")).stdout, "127.0.0.1:4000\n");

  await rookery("site", "set", "extended_description", "Hello **there**");
  assert.equal((await rookery("site", "get", "extended_description")).stdout, "Hello **there**\n");
  await assert.rejects(rookery("site", "set", "terms_of_service", "Terms"), (e: { stderr: string }) =>
    /--effective-date is required/.test(e.stderr),
  );
  await rookery("site", "set", "terms_of_service", "Terms", "--effective-date", "2026-01-01");
  assert.match((await rookery("site", "get", "terms_of_service")).stdout, /== effective 2026-01-01\nTerms/);
});

test("relays from the command line: added (pending until the relay accepts), listed, disabled, removed", async () => {
  const inbox = "https://relay.example/inbox";
  assert.match((await rookery("relays", "add", inbox)).stdout, /Added https:\/\/relay\.example\/inbox; .*pending/);
  assert.equal((await rookery("relays", "list")).stdout, `${inbox}\tpending\n`);
  await assert.rejects(rookery("relays", "add", inbox), (e: { stderr: string }) => /already been taken/.test(e.stderr));
  await assert.rejects(rookery("relays", "add", "not a url"), (e: { stderr: string }) => /is invalid/.test(e.stderr));
  await rookery("relays", "disable", inbox);
  assert.equal((await rookery("relays", "list")).stdout, `${inbox}\tidle\n`);
  assert.equal((await rookery("relays", "remove", inbox)).stdout, `Removed ${inbox}.\n`);
  assert.equal((await rookery("relays", "list")).stdout, "");
  await assert.rejects(rookery("relays", "remove", inbox), (e: { stderr: string }) => /No such relay/.test(e.stderr));
});

test("a command's change reaches the running server at once, without Redis (approving a sign-up)", async () => {
  const served = mkdtempSync(join(tmpdir(), "rookery-cli-serve-"));
  const local = { ...env, DATA_DIR: served, PORT: "0", REGISTRATIONS_MODE: "approved", REDIS_URL: "" };
  const cli = (...args: string[]) => run(process.execPath, ["src/main.ts", ...args], { env: local });
  const server = spawn(process.execPath, ["src/main.ts", "serve"], {
    env: local,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (chunk) => {
        out += chunk;
        const listening = /listening on (http:\/\/\S+)/.exec(out);
        if (listening) resolve(listening[1]);
      });
      server.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const created = await cli("accounts", "create", "waiting", "--email", "waiting@example.test", "--confirmed");
    const password = /Password: (\S+)/.exec(created.stdout)![1];
    const app = await (
      await fetch(`${origin}/api/v1/apps`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "t", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read" }),
      })
    ).json();
    const grant = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "password",
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: "waiting@example.test",
        password,
        scope: "read",
      }),
    });
    const { access_token } = await grant.json();
    const me = () =>
      fetch(`${origin}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${access_token}` } });
    const before = await me();
    assert.equal(before.status, 403);
    assert.deepEqual(await before.json(), { error: "Your login is currently pending approval" });
    await cli("accounts", "approve", "waiting");
    const after = await me();
    assert.equal(after.status, 200, "the cached answer was forgotten when the command ran");
    assert.equal((await after.json()).username, "waiting");
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    rmSync(served, { recursive: true, force: true });
  }
});

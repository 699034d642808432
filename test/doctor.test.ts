// `rookery doctor` run as an operator runs it, beside a running server: every check passes (with a
// test mail sent), and each broken part fails its own line with a non-zero exit.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startMailbox } from "./mailbox.ts";
import { dialectUnderTest, startServer, TEST_DATABASE_URL, type TestServer } from "./rig.ts";

const run = promisify(execFile);
let server: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;

before(async () => {
  mailbox = await startMailbox();
  server = await startServer();
});
after(async () => {
  await server.close();
  await mailbox.close();
});

/** The configuration of the test server, as the command reads it from the environment. */
function serverEnv(): Record<string, string> {
  const config = server.rt.config;
  let databaseUrl = config.databaseUrl;
  if (TEST_DATABASE_URL) {
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${server.schema}`);
    databaseUrl = url.toString();
  }
  return {
    LOCAL_DOMAIN: config.localDomain,
    DATA_DIR: config.dataDir,
    DATABASE_URL: databaseUrl,
    SECRET_KEY_BASE: config.secretKeyBase,
    REDIS_URL: "redis://127.0.0.1:6379",
    SMTP_URL: mailbox.url,
    SMTP_FROM: "rookery@doctor.test",
  };
}

function doctor(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, ["src/main.ts", "doctor", ...args], { env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

const lines = (stdout: string) => stdout.trim().split("\n");

test("a healthy server: every check passes, and the test mail arrives", async () => {
  const result = await doctor(serverEnv(), "--mail-to", "operator@doctor.test");
  assert.equal(result.code, 0, result.stdout);
  const [configuration, database, redis, storage, mail, web] = lines(result.stdout);
  assert.match(
    configuration!,
    new RegExp(`^ok   configuration: Rookery 0\\.1\\.0, ${server.rt.config.localDomain} at http://`),
  );
  assert.match(configuration!, new RegExp(`, ${dialectUnderTest}, `));
  assert.equal(
    database,
    `ok   database: ${dialectUnderTest === "postgres" ? "PostgreSQL answers" : "SQLite takes writes"}; every migration applied`,
  );
  assert.equal(redis, "ok   redis: Redis answers");
  assert.equal(storage, "ok   storage: a file written, read back and deleted (DATA_DIR/media)");
  assert.equal(mail, "ok   mail: a test mail sent to operator@doctor.test");
  assert.equal(web, `ok   web: ${server.url}/health answers OK (plain http: WEB_DOMAIN is this machine)`);
  const received = await mailbox.mailTo("operator@doctor.test");
  assert.match(received.text, /sent by `rookery doctor --mail-to`/);
  // The storage check leaves no file behind.
  assert.deepEqual(readdirSync(join(server.rt.config.dataDir, "media", "doctor")), []);
});

test("Redis, mail and the web address unreachable: each fails on its own line, and the exit code says so", async () => {
  const result = await doctor({
    ...serverEnv(),
    REDIS_URL: "redis://127.0.0.1:1",
    SMTP_URL: "smtp://127.0.0.1:1",
    LOCAL_DOMAIN: "127.0.0.1:1",
  });
  assert.equal(result.code, 1);
  assert.equal(result.stderr, "3 check(s) failed.\n");
  const [, database, redis, storage, mail, web] = lines(result.stdout);
  assert.match(database!, /^ok {3}database: /);
  assert.match(redis!, /^FAIL redis: .+/);
  assert.match(storage!, /^ok {3}storage: /);
  assert.match(mail!, /^FAIL mail: .*ECONNREFUSED/);
  assert.match(
    web!,
    /^FAIL web: http:\/\/127\.0\.0\.1:1\/health: .*\(is the server running, and WEB_DOMAIN pointing at it\?\)$/,
  );
});

test("a configuration error, and a missing database, fail the first lines", async () => {
  const broken = await doctor({ ...serverEnv(), PORT: "many" });
  assert.equal(broken.code, 1);
  assert.equal(broken.stdout, 'FAIL configuration: PORT="many": must be a whole number\n');
  if (dialectUnderTest === "sqlite") {
    const missing = await doctor({
      ...serverEnv(),
      DATABASE_URL: `sqlite:${join(server.rt.config.dataDir, "none.sqlite")}`,
    });
    assert.equal(missing.code, 1);
    assert.match(
      lines(missing.stdout)[1]!,
      /^FAIL database: no database at .*none\.sqlite yet: run `rookery db migrate`/,
    );
  } else {
    const missing = await doctor({ ...serverEnv(), DATABASE_URL: "postgres://root@127.0.0.1:1/test" });
    assert.equal(missing.code, 1);
    assert.match(lines(missing.stdout)[1]!, /^FAIL database: .*ECONNREFUSED/);
  }
});

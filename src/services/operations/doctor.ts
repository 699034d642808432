// `rookery doctor`: the questions an operator asks when something is off, each answered in one
// line: can the configuration be read, does the database answer (with every migration applied),
// Redis, the media storage (a file written, read back and deleted), the mail server (and, when
// asked, a mail sent), and does this server answer at its own address, as the world reaches it.
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import type { Config } from "../../config.ts";
import { dialectOf, pendingMigrations, sqlitePath } from "../../db/index.ts";
import { mediaStorage } from "../../media/storage.ts";
import { createFetcher } from "../../net/fetch.ts";
import { createRuntime, type Runtime } from "../../runtime.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { deliverMail, verifyMailServer } from "../mail.ts";
import { checkDatabase, checkRedis } from "./readiness.ts";

export interface Verdict {
  name: string;
  /** null: not checked, as nothing is configured for it. */
  ok: boolean | null;
  detail: string;
}

export interface DoctorOptions {
  /** Send a test mail there. */
  mailTo?: string;
}

/** How long Redis may take to accept the first connection of a command. */
const REDIS_CONNECT_MS = 3000;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function verdict(name: string, run: () => Promise<string>): Promise<Verdict> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (error) {
    return { name, ok: false, detail: message(error) };
  }
}

/** The checks one after the other, each yielded as soon as it is done. */
export async function* diagnose(config: Config, options: DoctorOptions = {}): AsyncGenerator<Verdict> {
  const dialect = dialectOf(config.databaseUrl);
  yield {
    name: "configuration",
    ok: true,
    detail: `Rookery ${ROOKERY_VERSION}, ${config.localDomain} at ${config.origin}, ${dialect}, ${config.webThreads} web thread(s)`,
  };
  if (dialect === "sqlite" && !existsSync(sqlitePath(config.databaseUrl))) {
    yield {
      name: "database",
      ok: false,
      detail: `no database at ${sqlitePath(config.databaseUrl)} yet: run \`rookery db migrate\` or start the server`,
    };
    return;
  }
  let rt: Runtime;
  try {
    rt = await createRuntime(config, { migrate: false, serverSettings: false, sqliteCheckpoints: false, idTags: 0 });
  } catch (error) {
    yield { name: "database", ok: false, detail: message(error) };
    return;
  }
  try {
    yield await databaseVerdict(rt);
    yield await redisVerdict(rt);
    yield await verdict("storage", async () => {
      const storage = mediaStorage(config);
      const key = `doctor/${randomUUID()}.txt`;
      const written = `Written by rookery doctor at ${new Date().toISOString()}`;
      await storage.put(key, new TextEncoder().encode(written), "text/plain");
      try {
        const read = (await storage.get(key)).toString("utf8");
        if (read !== written) throw new Error("a file written was read back different");
      } finally {
        await storage.delete(key);
      }
      return `a file written, read back and deleted (${storage.kind === "s3" ? `S3 bucket ${config.media.s3?.bucket}` : "DATA_DIR/media"})`;
    });
    yield await mailVerdict(rt, options.mailTo);
    yield await webVerdict(config);
  } finally {
    await rt.close();
  }
}

async function databaseVerdict(rt: Runtime): Promise<Verdict> {
  const answers = await checkDatabase(rt);
  if (!answers.ok) return answers;
  return verdict("database", async () => {
    const pending = await pendingMigrations(rt.db);
    if (pending.length > 0) {
      throw new Error(`${answers.detail}, but ${pending.length} migration(s) are pending: run \`rookery db migrate\``);
    }
    return `${answers.detail}; every migration applied`;
  });
}

/** A command's Redis connection is new: it is given a moment to connect before it counts as down. */
async function redisVerdict(rt: Runtime): Promise<Verdict> {
  const deadline = Date.now() + REDIS_CONNECT_MS;
  for (;;) {
    const check = checkRedis(rt);
    if (!check) return { name: "redis", ok: null, detail: "REDIS_URL not set (fine for one process)" };
    const result = await check;
    if (result.ok || Date.now() > deadline) return result;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function mailVerdict(rt: Runtime, mailTo: string | undefined): Promise<Verdict> {
  if (!rt.config.smtp) {
    return { name: "mail", ok: mailTo ? false : null, detail: "SMTP_URL not set: mails are only written to the log" };
  }
  return verdict("mail", async () => {
    await verifyMailServer(rt);
    if (!mailTo) return `${new URL(rt.config.smtp!.url).host} accepts a connection (give --mail-to to send one)`;
    await deliverMail(rt, {
      to: mailTo,
      subject: `Rookery at ${rt.config.localDomain}: a test mail`,
      text: `This mail was sent by \`rookery doctor --mail-to\` on ${rt.config.localDomain}.\n`,
    });
    return `a test mail sent to ${mailTo}`;
  });
}

/**
 * This server asked for /health at its own origin, through the outgoing fetcher (which checks the
 * certificate). Private addresses are allowed here: the address is the operator's own, and a
 * server behind a NAT or a proxy on its network reaches itself that way.
 */
function webVerdict(config: Config): Promise<Verdict> {
  return verdict("web", async () => {
    const fetch = createFetcher({ allowPrivateAddresses: true, userAgent: `Rookery/${ROOKERY_VERSION} doctor` });
    const url = `${config.origin}/health`;
    const res = await fetch(url, { timeoutMs: 10_000, maxBytes: 1024, maxRedirects: 0 }).catch((error) => {
      throw new Error(`${url}: ${message(error)} (is the server running, and WEB_DOMAIN pointing at it?)`);
    });
    if (res.status !== 200 || res.body.toString("utf8") !== "OK") {
      throw new Error(`${url} answered HTTP ${res.status}, not Rookery's OK: is WEB_DOMAIN's proxy pointing here?`);
    }
    const plain = config.origin.startsWith("http:") ? " (plain http: WEB_DOMAIN is this machine)" : "";
    return `${url} answers OK${plain}`;
  });
}

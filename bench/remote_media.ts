// The remote media benchmark (`npm run bench:remote-media`): `rookery serve` as its own process,
// in its default configuration, takes BENCH_STATUSES (1,000 by default) signed Create(Note)
// activities from 50 actors of one stand-in server, 50 at a time, three times: without media, each
// with one image (a BENCH_IMAGE JPEG, 1280x960 by default: about 500 KB of fine grain), which the
// server downloads from that server, processes (preview, blurhash; the original is kept as it came
// when it needs no change) and stores, and without media again (the machine's speed drifts: the
// rate compared with is the mean of the two). It reports the rate at which each batch is done
// (every status stored and every image cached, no job left), counting from the first request, the
// server's CPU time by thread, and the most downloads the stand-in server saw at once. The target:
// media cached at no less than half the rate of statuses without them, at most 4 downloads at once
// from the one server. A warm-up of BENCH_WARMUP of each kind comes first. SQLite by default;
// BENCH_DATABASE_URL (an admin URL: a throwaway database is made on it) runs it on PostgreSQL too.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import sharp from "sharp";
import { type Db, openDatabase } from "../src/db/index.ts";
import { configureLogging } from "../src/log.ts";
import { DOWNLOADS_PER_HOST } from "../src/media/downloads.ts";
import { type RemoteServer, signedPostHeaders, startRemoteServer } from "../test/remote_actors.ts";
import type { SignedRequest } from "./inbox_load.ts";
import { cpuMs, cpuMsByThread, freePort, log, postgresDatabase, serverEnv, startRookery, stopRookery } from "./lib.ts";

const STATUSES = Number(process.env.BENCH_STATUSES ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const CONCURRENCY = 50;
const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const [WIDTH, HEIGHT] = (process.env.BENCH_IMAGE ?? "1280x960").split("x").map(Number) as [number, number];

/** A photo-like picture: smooth gradients with some grain, so that it compresses as photos do. */
async function picture(): Promise<Buffer> {
  const [width, height] = [WIDTH, HEIGHT];
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const grain = (Math.sin(x * 12.9898 + y * 78.233) * 43758.5453) % 1;
      pixels[i] = (x / width) * 200 + grain * 30;
      pixels[i + 1] = (y / height) * 180 + grain * 30;
      pixels[i + 2] = 120 + Math.sin(x / 40) * 60 + grain * 30;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function send(requests: SignedRequest[]): Promise<number> {
  const worker = new Worker(new URL("./inbox_load.ts", import.meta.url), {
    workerData: { requests, concurrency: CONCURRENCY, rate: null },
  });
  const done = await new Promise<{ statuses: number[] }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  await worker.terminate();
  return done.statuses.filter((s) => s !== 202).length;
}

/** Until `done` holds and no job is due within a minute, looking every 50 ms. */
async function drained(db: Db, done: () => Promise<boolean>): Promise<void> {
  for (;;) {
    const job = await db
      .selectFrom("jobs")
      .select("id")
      .where("failed_at", "is", null)
      .where("run_at", "<=", new Date(Date.now() + 60_000))
      .executeTakeFirst();
    if (!job && (await done())) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function runOn(databaseUrl: string, dataDir: string): Promise<boolean> {
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const env = { ...serverEnv(port, dataDir, databaseUrl), ALLOW_PRIVATE_ADDRESSES: "true", RATE_LIMITS: "off" };
  const remote: RemoteServer = await startRemoteServer();
  const names = Array.from({ length: 50 }, (_, i) => `poster${i}`);
  const image = await picture();
  let child = null;
  let conn = null;
  try {
    child = await startRookery(env, port);
    conn = await openDatabase(databaseUrl, { sqliteCheckpoints: false, poolSize: 1 });
    const db = conn.db;
    const inbox = `${serverUrl}/inbox`;
    let n = 0;
    const batch = (count: number, withImage: boolean): SignedRequest[] =>
      Array.from({ length: count }, () => {
        const i = n++;
        const name = names[i % names.length];
        const actor = remote.actor(name).id;
        const id = `${actor}/statuses/${100000 + i}`;
        const attachment = withImage
          ? [{ type: "Document", mediaType: "image/jpeg", url: `${remote.origin}/files/${i}.jpg`, name: "a view" }]
          : [];
        if (withImage) remote.files.set(`/files/${i}.jpg`, { type: "image/jpeg", body: image });
        const note = { id, type: "Note", attributedTo: actor, content: `<p>post ${i}</p>`, to: [PUBLIC], attachment };
        const activity = {
          "@context": "https://www.w3.org/ns/activitystreams",
          id: `${id}/activity`,
          type: "Create",
          actor,
          published: new Date().toISOString(),
          to: [PUBLIC],
          object: { ...note, published: new Date().toISOString() },
        };
        const body = JSON.stringify(activity);
        return { url: inbox, headers: signedPostHeaders(remote.actor(name), inbox, body, "draft-cavage"), body };
      });
    const count = async (cached: boolean) => {
      const row = cached
        ? await db
            .selectFrom("media_attachments")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("remote_state", "in", ["cached", "failed", "lazy"])
            .executeTakeFirstOrThrow()
        : await db
            .selectFrom("statuses")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("local", "=", false)
            .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    /** Sends `requests`, waits until they are done; the seconds it took from the first request. */
    const measure = async (requests: SignedRequest[], withImage: boolean) => {
      const [statusesBefore, mediaBefore] = [await count(false), await count(true)];
      const cpuBefore = cpuMs(child!.pid!);
      const threadsBefore = cpuMsByThread(child!.pid!);
      const started = performance.now();
      const refused = await send(requests);
      const expected = requests.length - refused;
      await drained(
        db,
        async () =>
          (await count(false)) >= statusesBefore + expected &&
          (!withImage || (await count(true)) >= mediaBefore + expected),
      );
      const seconds = (performance.now() - started) / 1000;
      const threads = [...cpuMsByThread(child!.pid!)]
        .map(([name, ms]) => [name, (ms - (threadsBefore.get(name) ?? 0)) / expected] as const)
        .filter(([, ms]) => ms >= 0.1)
        .sort((x, y) => y[1] - x[1])
        .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
        .join(", ");
      return { seconds, done: expected, cpuMs: (cpuMs(child!.pid!) - cpuBefore) / expected, threads };
    };

    if (WARMUP > 0) {
      await measure(batch(WARMUP, false), false);
      await measure(batch(WARMUP, true), true);
    }
    const plain = await measure(batch(STATUSES, false), false);
    remote.fileRequests.maxActive = 0;
    const requestsBefore = remote.fileRequests.count;
    const media = await measure(batch(STATUSES, true), true);
    // Without media again: the machine's speed drifts, so the rate to compare with is that of the
    // batches on either side.
    const plainAfter = await measure(batch(STATUSES, false), false);
    const states = await db
      .selectFrom("media_attachments")
      .select(["remote_state", (eb) => eb.fn.countAll().as("n")])
      .groupBy("remote_state")
      .execute();

    const rate = (r: { seconds: number; done: number }) => r.done / r.seconds;
    const plainRate = (rate(plain) + rate(plainAfter)) / 2;
    const kind = databaseUrl.startsWith("sqlite") ? "sqlite" : "postgres";
    const load = loadavg().map((l) => l.toFixed(2));
    console.log(`Remote media (${kind}), rookery serve as its own process, load average ${load.join(" ")}`);
    console.log(
      `  ${plain.done} statuses without media, before and after: done in ${plain.seconds.toFixed(2)} and ${plainAfter.seconds.toFixed(2)} s, ${rate(plain).toFixed(0)}/s and ${rate(plainAfter).toFixed(0)}/s, server CPU ${plain.cpuMs.toFixed(1)} and ${plainAfter.cpuMs.toFixed(1)} ms each`,
    );
    console.log(
      `  ${media.done} statuses with a ${WIDTH}x${HEIGHT} image of ${Math.round(image.length / 1024)} KB each, downloaded, processed and stored: done in ${media.seconds.toFixed(2)} s, ${rate(media).toFixed(0)}/s, server CPU ${media.cpuMs.toFixed(1)} ms each (${((rate(media) / plainRate) * 100).toFixed(0)}% of the mean rate without media; target at least 50%)`,
    );
    console.log(`  server CPU by thread, ms per status: without media ${plain.threads}; with ${media.threads}`);
    console.log(
      `  ${remote.fileRequests.count - requestsBefore} downloads; at most ${remote.fileRequests.maxActive} at once from the one server (limit ${DOWNLOADS_PER_HOST})`,
    );
    console.log(`  attachments by state: ${states.map((s) => `${s.remote_state ?? "local"} ${s.n}`).join(", ")}`);
    return rate(media) >= plainRate / 2 && remote.fileRequests.maxActive <= DOWNLOADS_PER_HOST;
  } finally {
    await conn?.close();
    await stopRookery(child);
    await remote.close();
  }
}

await configureLogging("warn");
const dataDir = mkdtempSync(join(tmpdir(), "rookery-bench-remote-media-"));
let passed = true;
try {
  passed = await runOn(`sqlite:${join(dataDir, "rookery.sqlite")}`, dataDir);
  const admin = process.env.BENCH_DATABASE_URL;
  const pg = admin ? await postgresDatabase(admin) : null;
  if (admin && !pg) log(`(no PostgreSQL at ${admin}; its run is left out)`);
  if (pg) {
    try {
      passed = (await runOn(pg.url, dataDir)) && passed;
    } finally {
      await pg.drop();
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (!passed) {
  console.log("  target missed");
  process.exitCode = 1;
}

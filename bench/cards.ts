// The link preview benchmark (`npx node bench/cards.ts`), with the server in this process (as the
// tests start it; TEST_DATABASE_URL for PostgreSQL):
//  (a) (measured second) the latency of POST /api/v1/statuses, p50 and p99, for statuses without
//      links and for statuses each linking another page of a site that answers after 10 s
//      (BENCH_SLOW_MS), posted in turns; and how long a follower then waits for the next post in
//      the home timeline while those pages hang (the fan-out job's delay);
//  (b) (measured first) BENCH_POSTS (1,000) statuses linking one URL, posted 10 at a time: how many times the site
//      is asked for it, and how long until every one of them shows the card.
// Names under example.com resolve to this machine, as the tests make them.
import dns from "node:dns";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { follow } from "../test/fixtures.ts";
import { startServer, type TestServer, type TestUser } from "../test/rig.ts";
import { percentile } from "./lib.ts";

const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 10_000);
const LATENCY_POSTS = Number(process.env.BENCH_LATENCY_POSTS ?? 50);
const SAME_POSTS = Number(process.env.BENCH_POSTS ?? 1000);
const PARALLEL = 10;

const systemLookup = dns.promises.lookup;
dns.promises.lookup = ((host: string, options: dns.LookupAllOptions) =>
  host.endsWith(".example.com")
    ? Promise.resolve([{ address: "127.0.0.1", family: 4 }])
    : systemLookup(host, options)) as typeof dns.promises.lookup;

const asked = new Map<string, number>();
const site = createServer((req, res) => {
  const path = req.url ?? "/";
  asked.set(path, (asked.get(path) ?? 0) + 1);
  const answer = () =>
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(`<title>Page ${path}</title><meta property="og:title" content="Page">`);
  if (path.startsWith("/slow/")) setTimeout(answer, SLOW_MS).unref();
  else answer();
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://cards.example.com:${(site.address() as AddressInfo).port}`;

const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
const writer = await server.user("writer");
const reader = await server.user("reader");
await follow(server, reader, writer);

async function postTimed(user: TestUser, status: string): Promise<{ id: string; ms: number; text: string }> {
  const started = performance.now();
  const res = await server.post("/api/v1/statuses", { token: user.token, json: { status } });
  if (res.status !== 200) throw new Error(`POST /api/v1/statuses answered ${res.status}: ${res.text}`);
  return { id: res.body.id, ms: performance.now() - started, text: status };
}

/** Posts `n` statuses made by `text`, PARALLEL at a time; their ids and latencies. */
async function postMany(n: number, text: (i: number) => string) {
  const out: { id: string; ms: number; text: string }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < n) out.push(await postTimed(writer, text(next++)));
    }),
  );
  return out;
}

/** Milliseconds until the reader's home timeline holds `id`, polled. */
async function untilHome(s: TestServer, id: string, since: number): Promise<number> {
  for (;;) {
    const home = await s.get("/api/v1/timelines/home", { token: reader.token, query: { limit: "40" } });
    if (home.body.some((x: { id: string }) => x.id === id)) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const line = (label: string, ms: number[]) =>
  `${label}: p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms`;

try {
  // (b) One URL, many statuses.
  const t0 = performance.now();
  const same = await postMany(SAME_POSTS, (i) => `Everyone reads ${origin}/same ${i}`);
  const posted = performance.now() - t0;
  const ids = same.map((p) => p.id);
  for (;;) {
    const shown = await server.rt.db
      .selectFrom("preview_cards_statuses as pcs")
      .innerJoin("preview_cards as c", "c.id", "pcs.preview_card_id")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("pcs.status_id", "in", ids)
      .where("c.title", "<>", "")
      .executeTakeFirstOrThrow();
    if (Number(shown.n) === SAME_POSTS) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(
    `(b) ${SAME_POSTS} posts linking one URL (posted in ${(posted / 1000).toFixed(1)} s): the site was asked ${asked.get("/same") ?? 0} time(s); all showed the card after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // (a) Latency: statuses without links and statuses linking the slow site, in turns (the machine's
  // load drifts; posted in turns, both kinds see the same).
  const mixed = await postMany(2 * LATENCY_POSTS, (i) =>
    i % 2 ? `A slow link ${origin}/slow/${i}` : `A plain status ${i}`,
  );
  const plain = mixed.filter((p) => p.text.startsWith("A plain"));
  const linked = mixed.filter((p) => !p.text.startsWith("A plain"));
  console.log(
    line(
      `(a) ${LATENCY_POSTS} posts without links`,
      plain.map((p) => p.ms),
    ),
  );
  console.log(
    line(
      `(a) ${LATENCY_POSTS} posts linking a site that answers in ${SLOW_MS / 1000} s`,
      linked.map((p) => p.ms),
    ),
  );
  // With the two card slots held by pages that hang, a follower still gets the next post at once.
  await untilHome(server, mixed.at(-1)!.id, performance.now());
  const started = performance.now();
  const check = await postTimed(writer, "Plain, behind the slow links");
  console.log(
    `(a) behind the slow links, a follower's home timeline has the next post after ${(await untilHome(server, check.id, started)).toFixed(0)} ms`,
  );
} finally {
  // The pages still hanging fail at once: closing waits for the jobs under way.
  site.closeAllConnections();
  site.close();
  await server.close();
}

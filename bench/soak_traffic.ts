// What the soak (bench/soak.ts) sends besides its steady reads, as a real server's day brings it:
// a post a second by the account with 10,000 followers, favourites and their undoing, searches,
// streaming clients that connect and leave, signed Create(Note) deliveries from another server's
// actors, and photo uploads. Each minute it hands over what happened (latencies, errors, events).
import WebSocket from "ws";
import type { RemoteServer } from "../test/remote_actors.ts";
import { signedCreates } from "./ingest.ts";
import { percentile } from "./lib.ts";
import { multipart, photo, upload } from "./uploads.ts";

export interface TrafficTokens {
  reader: string;
  poster: string;
}

/** What one minute of the traffic did. */
export interface TrafficMinute {
  posts: number;
  favourites: number;
  searches: { count: number; p50: number; p99: number; max: number };
  inbox: { sent: number; refused: number };
  uploads: { count: number; answeredP99: number; processedMax: number };
  streams: { opened: number; closed: number; events: number };
  /** Answers other than the expected ones, and requests that failed, over every kind above. */
  errors: number;
}

const RATES = {
  /** Posts a second by the poster (each fanned out to 10,000 feeds). */
  posts: 1,
  /** Favourites (or their undoing) a second by the reader. */
  favourites: 2,
  searches: 2,
  /** Create(Note) deliveries a second. */
  inbox: 10,
  /** A photo upload every this many seconds. */
  uploadEvery: 6,
  /** Streaming clients kept open, and how many of them leave (and are replaced) each second. */
  streams: 100,
  streamChurn: 5,
};

const SEARCHES = [
  "/api/v2/search?q=author4&type=accounts&limit=5",
  "/api/v2/search?q=bird&type=hashtags&limit=5",
  "/api/v2/search?q=soak&type=statuses&limit=5",
  "/api/v2/search?q=fan12&resolve=false&limit=5",
];

export async function startTraffic(
  base: string,
  tokens: TrafficTokens,
  remote: { server: RemoteServer; names: string[]; inbox: string },
): Promise<{ take(): TrafficMinute; stop(): Promise<void> }> {
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  let minute = empty();
  const searchTimes: number[] = [];
  const answered: number[] = [];
  const processed: number[] = [];
  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    const tracked = p.catch(() => minute.errors++).finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  const expect = async (res: Promise<Response>, ok: number[]) => {
    const r = await res;
    await r.arrayBuffer();
    if (!ok.includes(r.status)) minute.errors++;
    return r.status;
  };

  // The statuses the reader favourites, then unfavourites, in turns.
  const home = (await (
    await fetch(`${base}/api/v1/timelines/home?limit=40`, { headers: auth(tokens.reader) })
  ).json()) as {
    id: string;
  }[];
  let favourite = 0;
  let posted = 0;
  let search = 0;
  let delivered = 0;
  const form = multipart((await photo(1600, 1200)).jpeg);

  const timers = [
    setInterval(() => {
      posted++;
      minute.posts++;
      track(
        expect(
          fetch(`${base}/api/v1/statuses`, {
            method: "POST",
            headers: { ...auth(tokens.poster), "content-type": "application/json" },
            body: JSON.stringify({ status: `Soak post ${posted}` }),
          }),
          [200],
        ),
      );
    }, 1000 / RATES.posts),
    setInterval(() => {
      const id = home[favourite % home.length].id;
      const undo = Math.floor(favourite / home.length) % 2 === 1;
      favourite++;
      minute.favourites++;
      track(
        expect(
          fetch(`${base}/api/v1/statuses/${id}/${undo ? "unfavourite" : "favourite"}`, {
            method: "POST",
            headers: auth(tokens.reader),
          }),
          [200],
        ),
      );
    }, 1000 / RATES.favourites),
    setInterval(() => {
      const path = SEARCHES[search++ % SEARCHES.length];
      const started = performance.now();
      track(
        expect(fetch(`${base}${path}`, { headers: auth(tokens.reader) }), [200]).then(() =>
          searchTimes.push(performance.now() - started),
        ),
      );
    }, 1000 / RATES.searches),
    setInterval(() => {
      // Signed now, so that their Date is within the server's window however long the soak runs.
      const requests = signedCreates(remote.server, remote.names, remote.inbox, delivered, RATES.inbox);
      delivered += RATES.inbox;
      for (const r of requests) {
        minute.inbox.sent++;
        track(
          fetch(r.url, { method: "POST", headers: r.headers, body: r.body }).then(async (res) => {
            await res.arrayBuffer();
            if (res.status !== 202) minute.inbox.refused++;
          }),
        );
      }
    }, 1000),
    setInterval(() => {
      minute.uploads.count++;
      track(
        upload(base, tokens.poster, form).then((t) => {
          answered.push(t.answered);
          processed.push(t.processed);
        }),
      );
    }, RATES.uploadEvery * 1000),
  ];

  // Streaming clients of the reader, half on its own stream and half on the local timeline; the
  // oldest leave each second and new ones take their place.
  const sockets: WebSocket[] = [];
  let opened = 0;
  const open = () => {
    const stream = opened++ % 2 === 0 ? "user" : "public:local";
    const socket = new WebSocket(`${base.replace("http", "ws")}/api/v1/streaming?stream=${stream}`, [tokens.reader], {
      perMessageDeflate: false,
    });
    socket.on("open", () => minute.streams.opened++);
    socket.on("message", () => minute.streams.events++);
    socket.on("error", () => minute.errors++);
    sockets.push(socket);
  };
  for (let i = 0; i < RATES.streams; i++) open();
  timers.push(
    setInterval(() => {
      for (const socket of sockets.splice(0, RATES.streamChurn)) {
        socket.close();
        minute.streams.closed++;
      }
      for (let i = 0; i < RATES.streamChurn; i++) open();
    }, 1000),
  );

  return {
    take() {
      const m = minute;
      const ms = (values: number[], p: number) => (values.length ? Math.round(percentile(values, p)) : 0);
      m.searches = {
        count: searchTimes.length,
        p50: ms(searchTimes, 50),
        p99: ms(searchTimes, 99),
        max: Math.round(Math.max(0, ...searchTimes)),
      };
      m.uploads.answeredP99 = ms(answered, 99);
      m.uploads.processedMax = Math.round(Math.max(0, ...processed));
      searchTimes.length = answered.length = processed.length = 0;
      minute = empty();
      return m;
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.terminate();
      await Promise.all(pending);
    },
  };
}

function empty(): TrafficMinute {
  return {
    posts: 0,
    favourites: 0,
    searches: { count: 0, p50: 0, p99: 0, max: 0 },
    inbox: { sent: 0, refused: 0 },
    uploads: { count: 0, answeredP99: 0, processedMax: 0 },
    streams: { opened: 0, closed: 0, events: 0 },
    errors: 0,
  };
}

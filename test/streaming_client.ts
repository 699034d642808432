// Streaming clients for the tests: a raw WebSocket that records every frame, and an SSE reader.
import WebSocket from "ws";
import { hubOf } from "../src/streaming/hub.ts";
import type { TestServer } from "./rig.ts";
import { waitUntil } from "./wait.ts";

export interface Received {
  stream?: string[];
  event?: string;
  payload?: string;
  error?: string;
  status?: number;
}

export const wsUrl = (server: TestServer, query = "") =>
  `${server.url.replace(/^http/, "ws")}/api/v1/streaming${query}`;

/** Waits until `check` holds; `ms` bounds it only where giving up is the point (else a hang guard). */
export const until = (check: () => boolean, ms?: number, what = "a condition"): Promise<void> =>
  waitUntil(what, check, { every: 10, ...(ms === undefined ? {} : { hangMs: ms }) });

/** Waits until this server's thread holds `n` subscriptions in all. */
export function subscribed(server: TestServer, n: number): Promise<void> {
  return until(() => hubOf(server.rt).subscriptions === n, undefined, `${n} subscriptions`);
}

/** A WebSocket to the server that records what it receives. */
export class Socket {
  readonly frames: Received[] = [];
  readonly ws: WebSocket;
  closed = false;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => this.frames.push(JSON.parse(String(data))));
    ws.on("close", () => {
      this.closed = true;
    });
  }

  /** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
  static open(url: string, options: { token?: string; protocol?: string } = {}): Promise<Socket> {
    const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const ws = new WebSocket(url, options.protocol ? [options.protocol] : [], { headers });
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve(new Socket(ws)));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once("error", reject);
    });
  }

  send(message: Record<string, unknown>) {
    this.ws.send(JSON.stringify(message));
  }

  /** The frames of `event` so far; with `stream`, only those naming that stream first. */
  events(event: string, stream?: string): Received[] {
    return this.frames.filter((f) => f.event === event && (!stream || f.stream?.[0] === stream));
  }

  /** Waits for a frame of `event` that `match` accepts, and returns it. */
  async next(event: string, match: (f: Received) => boolean = () => true, ms?: number): Promise<Received> {
    const find = () => this.frames.find((f) => (f.event ?? "") === event && match(f));
    await until(() => find() !== undefined, ms, event || "an error");
    return find()!;
  }

  close() {
    this.ws.close();
  }
}

/** An SSE response read as it arrives. */
export class EventStream {
  readonly events: { event: string; data: string }[] = [];
  comments = 0;
  /** Blank lines outside any event (Mastodon.py takes each for a malformed event). */
  blankLines = 0;
  readonly #abort = new AbortController();
  status = 0;

  static async open(server: TestServer, path: string, token?: string): Promise<EventStream> {
    const s = new EventStream();
    const res = await fetch(new URL(path, server.url), {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: s.#abort.signal,
    });
    s.status = res.status;
    if (res.status !== 200 || !res.body) return s;
    void s.#read(res.body).catch(() => {});
    await until(() => s.comments > 0, undefined, "the stream's first comment");
    return s;
  }

  /** Reads line by line, as the SSE format is: comment lines count, a blank line ends an event. */
  async #read(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    let buffer = "";
    let event = "";
    let data: string | null = null;
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.startsWith(":")) this.comments++;
        else if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data = line.slice(6);
        else if (line === "") {
          if (data !== null) this.events.push({ event, data });
          if (data === null && event === "") this.blankLines++;
          event = "";
          data = null;
        }
      }
    }
  }

  close() {
    this.#abort.abort();
  }
}

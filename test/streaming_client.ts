// Streaming clients for the tests: a raw WebSocket that records every frame, and an SSE reader.
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { hubOf } from "../src/streaming/hub.ts";
import type { TestServer } from "./rig.ts";

export interface Received {
  stream?: string[];
  event?: string;
  payload?: string;
  error?: string;
  status?: number;
}

export const wsUrl = (server: TestServer, query = "") =>
  `${server.url.replace(/^http/, "ws")}/api/v1/streaming${query}`;

/** Waits until `check` holds, for up to `ms`. */
export async function until(check: () => boolean, ms = 5000, what = "a condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Waits until this server's thread holds `n` subscriptions in all. */
export function subscribed(server: TestServer, n: number): Promise<void> {
  return until(() => hubOf(server.rt).subscriptions === n, 5000, `${n} subscriptions`);
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
  async next(event: string, match: (f: Received) => boolean = () => true, ms = 5000): Promise<Received> {
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
    await until(() => s.comments > 0, 5000, "the stream's first comment");
    return s;
  }

  async #read(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(":")) this.comments++;
        else {
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? "";
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
          this.events.push({ event, data });
        }
        end = buffer.indexOf("\n\n");
      }
    }
  }

  close() {
    this.#abort.abort();
  }
}

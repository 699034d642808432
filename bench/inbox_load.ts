// The load of the federation benchmark's ingest, in a thread of its own: it posts requests signed
// beforehand, CONCURRENCY at a time over as many kept-alive connections (and, given a rate, none
// before its time at that rate), and reports their statuses and the CPU time it spent itself. It
// shares the machine's cores with the server, so it uses node:http, which cost about a third of
// what fetch did per request.
import { Agent, request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { pool } from "./pool.ts";

export interface SignedRequest {
  url: string;
  /** Where to send it, when not to `url` (another server of the same address: its Host header is `url`'s). */
  target?: string;
  headers: Record<string, string>;
  body: string;
}

const { requests, concurrency, rate } = workerData as {
  requests: SignedRequest[];
  concurrency: number;
  /** Requests per second, or null for as fast as the server answers. */
  rate: number | null;
};
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

function post({ url, target, headers, body }: SignedRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const length = String(Buffer.byteLength(body));
    const req = request(
      target ?? url,
      { method: "POST", headers: { ...headers, "content-length": length }, agent },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const cpuBefore = process.threadCpuUsage();
const started = performance.now();
const statuses = await pool(
  requests.map((r, i) => async () => {
    const wait = rate ? started + (i * 1000) / rate - performance.now() : 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return post(r);
  }),
  concurrency,
);
const cpu = process.threadCpuUsage(cpuBefore);
agent.destroy();
parentPort!.postMessage({ statuses, cpuMicros: cpu.user + cpu.system });

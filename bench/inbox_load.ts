// The load of the federation benchmark's ingest, in a thread of its own: it posts requests signed
// beforehand, CONCURRENCY at a time, and reports their statuses and the CPU time it spent itself,
// so that the benchmark can count the server's CPU time apart from the load's.
import { parentPort, workerData } from "node:worker_threads";
import { pool } from "./pool.ts";

export interface SignedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const { requests, concurrency } = workerData as { requests: SignedRequest[]; concurrency: number };
const cpuBefore = process.threadCpuUsage();
const statuses = await pool(
  requests.map(({ url, headers, body }) => async () => {
    const res = await fetch(url, { method: "POST", headers, body });
    await res.arrayBuffer();
    return res.status;
  }),
  concurrency,
);
const cpu = process.threadCpuUsage(cpuBefore);
parentPort!.postMessage({ statuses, cpuMicros: cpu.user + cpu.system });

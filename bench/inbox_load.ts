// The load of the federation benchmark's ingest, in a thread of its own: it posts requests signed
// beforehand, CONCURRENCY at a time, and reports their statuses and the CPU time it spent itself,
// so that the benchmark can count the server's CPU time apart from the load's.
import { parentPort, workerData } from "node:worker_threads";

export interface SignedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const { requests, concurrency } = workerData as { requests: SignedRequest[]; concurrency: number };
const cpuBefore = process.threadCpuUsage();
const statuses: number[] = new Array(requests.length);
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const i = next++;
      const { url, headers, body } = requests[i];
      const res = await fetch(url, { method: "POST", headers, body });
      await res.arrayBuffer();
      statuses[i] = res.status;
    }
  }),
);
const cpu = process.threadCpuUsage(cpuBefore);
parentPort!.postMessage({ statuses, cpuMicros: cpu.user + cpu.system });

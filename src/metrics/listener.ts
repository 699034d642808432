// The metrics listener: GET /metrics in Prometheus' text format, on a port of its own (METRICS_PORT,
// bound to METRICS_BIND, this machine by default), never on the public one. With METRICS_TOKEN set,
// scrapers send it as a bearer token. A scrape gathers the main thread's metrics and each web
// thread's (asked over its message port) and adds them up with prom-client's AggregatorRegistry:
// counters and histograms sum, and what is per thread carries a `thread` label.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AggregatorRegistry } from "prom-client";
import type { MetricsConfig } from "../config.ts";
import { logger } from "../log.ts";
import type { Metrics } from "./metrics.ts";

/** Each web thread's metrics, as its registry's getMetricsAsJSON() gives them. */
export type ThreadMetrics = () => Promise<object[]>;

const log = logger("metrics");
const digest = (value: string) => createHash("sha256").update(value).digest();

function authorized(header: string | undefined, token: string | null): boolean {
  if (token === null) return true;
  const given = /^Bearer (.+)$/i.exec(header ?? "")?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

export async function listenMetrics(
  config: MetricsConfig,
  metrics: Metrics,
  threads: ThreadMetrics,
): Promise<{ server: Server; port: number }> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
      return;
    }
    if (!authorized(req.headers.authorization, config.token)) {
      res.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("Unauthorized\n");
      return;
    }
    try {
      const all = [await metrics.registry.getMetricsAsJSON(), ...(await threads())];
      const registry = AggregatorRegistry.aggregate(all);
      res.writeHead(200, { "content-type": registry.contentType }).end(await registry.metrics());
    } catch (error) {
      log.error("Gathering the metrics failed: {error}", { error: String(error) });
      res.writeHead(500, { "content-type": "text/plain" }).end("Gathering the metrics failed\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: config.port, host: config.bind }, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

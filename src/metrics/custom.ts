// Metrics whose values are computed when scraped, registered with prom-client as the plain objects
// its registry reads (`get()` returning name, help, type, aggregator and values): what its typings
// call a Metric, made without a class whose every update builds label objects.
import type { Metric, Registry } from "prom-client";

export interface MetricPoint {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export interface MetricJson {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  /** How the values of several threads combine (prom-client's AggregatorRegistry). */
  aggregator: "sum" | "first" | "max";
  values: MetricPoint[];
}

export function register(registry: Registry, metric: { name: string; get(): MetricJson | Promise<MetricJson> }): void {
  registry.registerMetric(metric as unknown as Metric);
}

/** A metric of values read at each scrape. */
export function computed(
  registry: Registry,
  name: string,
  help: string,
  type: MetricJson["type"],
  values: () => MetricPoint[] | Promise<MetricPoint[]>,
  aggregator: MetricJson["aggregator"] = "sum",
): void {
  register(registry, { name, get: async () => ({ name, help, type, aggregator, values: await values() }) });
}

// The request latency histogram, kept so that observing costs a few map lookups and additions:
// prom-client's own Histogram builds a label object and a hash string on every observation. Series
// are found by route pattern, method and status class through nested maps (no key to build), and
// handed to prom-client's registry as a metric object when it is scraped.
import type { MetricJson, MetricPoint } from "./custom.ts";

/** Seconds; Mastodon-like API calls mostly take 5–100 ms. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const CLASSES = ["", "1xx", "2xx", "3xx", "4xx", "5xx"];

interface Series {
  /** Per bucket (not cumulative), the last for values past every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class RequestHistogram {
  readonly name = "rookery_http_request_duration_seconds";
  readonly help = "Time to answer an HTTP request, by route pattern, method and status class";
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #byRoute = new Map<string, Map<string, Series[]>>();

  observe(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.#byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.#byRoute.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (!byClass) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const statusClass = status >= 100 && status < 600 ? (status / 100) | 0 : 5;
    let series = byClass[statusClass];
    if (!series) {
      series = { counts: new Float64Array(BUCKETS.length + 1), sum: 0, count: 0 };
      byClass[statusClass] = series;
    }
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  get(): MetricJson {
    const values: MetricPoint[] = [];
    for (const [route, byMethod] of this.#byRoute) {
      for (const [method, byClass] of byMethod) {
        byClass.forEach((series, statusClass) => {
          const labels = { route, method, status: CLASSES[statusClass]! };
          let cumulative = 0;
          BUCKETS.forEach((le, i) => {
            cumulative += series.counts[i]!;
            values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
          });
          values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: "+Inf" }, value: series.count });
          values.push({ metricName: `${this.name}_sum`, labels, value: series.sum });
          values.push({ metricName: `${this.name}_count`, labels, value: series.count });
        });
      }
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

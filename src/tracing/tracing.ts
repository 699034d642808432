// OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT names a collector: a span for each HTTP
// request (named by its route pattern, a child of the caller's `traceparent` when it sent one) and
// for each job run, sent in batches over OTLP/HTTP. Loaded only then: without it, Runtime.tracing
// is null and none of OpenTelemetry is loaded. Each runtime has a provider of its own, registered
// nowhere globally, so that the several servers a test process runs keep theirs apart.
import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Context as HonoContext, MiddlewareHandler } from "hono";
import type { TracingConfig } from "../config.ts";
import { routeOf } from "../http/route.ts";
import { ROOKERY_VERSION } from "../version.ts";

export interface Tracing {
  /** The app's outermost middleware: one server span per request. */
  requests: MiddlewareHandler;
  /** Runs a job inside a span of its own. */
  job<T>(type: string, id: string, run: () => Promise<T>): Promise<T>;
  /** Sends what is still buffered, and stops. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (carrier: HonoContext) => Object.keys(carrier.req.header()),
  get: (carrier: HonoContext, key: string) => carrier.req.header(key),
};

export function startTracing(config: TracingConfig): Tracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName, "service.version": ROOKERY_VERSION }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: config.tracesUrl }) })],
  });
  const tracer = provider.getTracer("rookery", ROOKERY_VERSION);

  const within = async <T>(
    name: string,
    kind: SpanKind,
    parent: Context,
    attributes: Record<string, string>,
    run: (span: Span) => Promise<T>,
  ) => {
    const span = tracer.startSpan(name, { kind, attributes }, parent);
    try {
      return await run(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    requests: async (c, next) => {
      const parent = propagator.extract(ROOT_CONTEXT, c, headerGetter);
      const method = c.req.method;
      await within(
        method,
        SpanKind.SERVER,
        parent,
        { "http.request.method": method, "url.path": c.req.path },
        async (span) => {
          await next();
          const route = routeOf(c);
          const status = c.res.status;
          span.updateName(`${method} ${route}`);
          span.setAttributes({ "http.route": route, "http.response.status_code": status });
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        },
      );
    },
    job: (type, id, run) =>
      within(`job ${type}`, SpanKind.CONSUMER, ROOT_CONTEXT, { "rookery.job.type": type, "rookery.job.id": id }, () =>
        run(),
      ),
    shutdown: () => provider.shutdown(),
  };
}

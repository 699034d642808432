// OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT): requests and jobs reach a collector as spans
// over OTLP/HTTP, a request as a child of the caller's traceparent. The collector here is a small
// HTTP server keeping what it is sent.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
  status?: { code?: number };
}

const spans: Span[] = [];
const paths: string[] = [];
let collector: Server;
let server: TestServer;
let user: TestUser;

before(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      paths.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", () => resolve()));
  const port = (collector.address() as AddressInfo).port;
  server = await startServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` } });
  user = await server.user("traced");
});
after(async () => {
  await server.close();
  await new Promise((resolve) => collector.close(resolve));
});

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

async function spanNamed(name: string, match: (span: Span) => boolean = () => true): Promise<Span> {
  for (;;) {
    const found = spans.find((s) => s.name === name && match(s));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a request is a server span named by its route, a child of the caller's traceparent", async () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const parent = "00f067aa0ba902b7";
  const res = await server.get("/api/v1/statuses/1234", {
    token: user.token,
    headers: { traceparent: `00-${traceId}-${parent}-01` },
  });
  assert.equal(res.status, 404);
  const span = await spanNamed("GET /api/v1/statuses/:id", (s) => s.traceId === traceId);
  assert.equal(span.parentSpanId, parent);
  assert.equal(span.kind, 2); // SERVER
  assert.equal(attribute(span, "http.route"), "/api/v1/statuses/:id");
  assert.equal(attribute(span, "url.path"), "/api/v1/statuses/1234");
  assert.equal(attribute(span, "http.response.status_code"), 404);
  assert.match(paths[0]!, /^POST \/v1\/traces application\/json/);
});

test("a job run is a span of its own, named by its type", async () => {
  await post(server, user, "traced post");
  await server.settle();
  const span = await spanNamed("job feeds.fanout");
  assert.equal(attribute(span, "rookery.job.type"), "feeds.fanout");
  assert.match(String(attribute(span, "rookery.job.id")), /^\d+$/);
  const request = await spanNamed("POST /api/v1/statuses");
  assert.equal(attribute(request, "http.response.status_code"), 200);
});

test("without OTEL_EXPORTER_OTLP_ENDPOINT there is no tracing", async () => {
  const plain = await startServer();
  try {
    assert.equal(plain.rt.tracing, null);
    assert.equal(plain.rt.config.tracing, null);
  } finally {
    await plain.close();
  }
});

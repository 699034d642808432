// Health checks for load balancers, orchestrators and systemd. GET /health is Mastodon's liveness
// answer: "OK" from any process that answers HTTP at all, touching nothing else, so that a probe
// every second costs nothing. GET /health/ready is readiness: 503 while the database or (when
// configured) Redis is unreachable, so that traffic goes to the processes that can serve it.
import { router } from "../http/hono.ts";
import { readiness } from "../services/operations/readiness.ts";

export const health = router();

health.get("/health", (c) => {
  c.header("Cache-Control", "no-store");
  return c.text("OK");
});

health.get("/health/ready", async (c) => {
  const checks = await readiness(c.get("rt"));
  const ready = checks.every((check) => check.ok);
  c.header("Cache-Control", "no-store");
  const lines = checks.map((check) => `${check.name}: ${check.ok ? "ok" : "unavailable"} (${check.detail})`);
  return c.text(`${ready ? "OK" : "Unavailable"}\n${lines.join("\n")}\n`, ready ? 200 : 503);
});

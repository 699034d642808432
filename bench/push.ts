// The Web Push benchmark (`npx node bench/push.ts`): one account with 10 subscriptions (half
// aes128gcm, half aesgcm) on a push service in this process, mentioned BENCH_MENTIONS times (200 by
// default) as fast as the API takes the posts; measures how long until every push has arrived, and
// the pushes per second that makes (each encrypted, VAPID-signed and sent through the fetcher).
// SQLite by default; TEST_DATABASE_URL=postgres://… to run on PostgreSQL. The server, its job worker
// and the push service share this process, so the numbers are for one process doing all of it.

import { issueToken } from "../src/services/auth/tokens.ts";
import { Subscriber, startPushService } from "../test/push_receiver.ts";
import { startServer } from "../test/rig.ts";

const MENTIONS = Number(process.env.BENCH_MENTIONS ?? 200);
const SUBSCRIPTIONS = 10;

const pushService = await startPushService();
const server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
try {
  const recipient = await server.user("recipient");
  const sender = await server.user("sender");
  const app = await server.rt.db
    .selectFrom("oauth_access_tokens")
    .select("application_id")
    .where("user_id", "=", recipient.userId)
    .executeTakeFirstOrThrow();
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const token =
      i === 0
        ? recipient.token
        : (
            await issueToken(server.rt, {
              applicationId: app.application_id,
              userId: recipient.userId,
              scopes: ["push"],
            })
          ).token;
    const res = await server.post("/api/v1/push/subscription", {
      token,
      json: {
        subscription: {
          endpoint: `${pushService.url}/device/${i}`,
          keys: new Subscriber().keys,
          standard: i % 2 === 0,
        },
        data: { alerts: { mention: true } },
      },
    });
    if (res.status !== 200) throw new Error(res.text);
  }

  const expected = MENTIONS * SUBSCRIPTIONS;
  const started = performance.now();
  for (let i = 0; i < MENTIONS; i++) {
    const res = await server.post("/api/v1/statuses", {
      token: sender.token,
      json: { status: `@recipient mention number ${i}` },
    });
    if (res.status !== 200) throw new Error(res.text);
  }
  const posted = performance.now();
  while (pushService.received.length < expected) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (performance.now() - started > 600_000) throw new Error(`only ${pushService.received.length} pushes arrived`);
  }
  const done = performance.now();
  const seconds = (done - started) / 1000;
  console.log(
    JSON.stringify({
      database: process.env.TEST_DATABASE_URL ? "postgres" : "sqlite",
      mentions: MENTIONS,
      subscriptions: SUBSCRIPTIONS,
      pushes: pushService.received.length,
      posting_seconds: Number(((posted - started) / 1000).toFixed(2)),
      all_pushed_seconds: Number(seconds.toFixed(2)),
      pushes_per_second: Math.round(expected / seconds),
    }),
  );
} finally {
  await server.close();
  await pushService.close();
}

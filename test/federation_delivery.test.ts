// Delivery: one POST per server that has a shared inbox, however many followers live there; a
// server that keeps failing opens its breaker, and deliveries to it then cost no request.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { newId } from "../src/domain/ids.ts";
import { deliver } from "../src/federation/delivery.ts";
import { distribute } from "../src/federation/distribute.ts";
import { accountRow } from "../src/services/accounts/account_row.ts";
import { follow } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";
import { until } from "./streaming_client.ts";

let server: TestServer;
let writer: TestUser;

before(async () => {
  server = await startServer({ worker: false, env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  writer = await server.user("writer");
});
after(() => server.close());

test("a post to 1,000 followers on 100 servers makes 100 deliveries", async () => {
  const rows = [];
  for (let s = 0; s < 100; s++) {
    for (let f = 0; f < 10; f++) {
      const domain = `server${s}.example`;
      rows.push(
        accountRow({
          username: `follower${f}`,
          domain,
          uri: `https://${domain}/users/follower${f}`,
          shared_inbox_url: `https://${domain}/inbox`,
        }),
      );
    }
  }
  await server.rt.db.insertInto("accounts").values(rows).execute();
  await server.rt.db
    .insertInto("follows")
    .values(
      rows.map((row) => ({
        id: newId(),
        account_id: row.id,
        target_account_id: writer.accountId,
        created_at: new Date(),
      })),
    )
    .execute();
  // The worker is off here: the jobs wait, and the test runs them.
  const posted = await server.post("/api/v1/statuses", { token: writer.token, json: { status: "To everyone" } });
  assert.equal(posted.status, 200, posted.text);
  const jobs = await server.rt.db
    .selectFrom("jobs")
    .select(["type", "payload"])
    .where("type", "=", "federation.distribute")
    .execute();
  assert.equal(jobs.length, 1);
  await distribute(server.rt, jobs[0].payload as any);
  const deliveries = await server.rt.db
    .selectFrom("jobs")
    .select("payload")
    .where("type", "=", "federation.deliver")
    .execute();
  assert.equal(deliveries.length, 100);
  const inboxes = new Set(deliveries.map((d) => (d.payload as any).inbox));
  assert.equal(inboxes.size, 100);
  assert.ok(inboxes.has("https://server42.example/inbox"));
});

test("a failing server opens its breaker after five failures", async () => {
  let requests = 0;
  const failing = createServer((req, res) => {
    requests++;
    req.resume();
    req.on("end", () => res.writeHead(503).end());
  });
  await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
  const inbox = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/inbox`;
  const job = { inbox, owner: writer.accountId, keyId: `${server.url}/users/writer#main-key`, body: "{}" };
  try {
    for (let i = 0; i < 5; i++) await assert.rejects(deliver(server.rt, job));
    assert.equal(requests, 5);
    await assert.rejects(deliver(server.rt, job), /breaker/);
    assert.equal(requests, 5);
  } finally {
    failing.close();
    failing.closeAllConnections();
  }
});

test("a refusal (4xx) is final: the job ends without an error", async () => {
  let requests = 0;
  const refusing = createServer((req, res) => {
    requests++;
    req.resume();
    req.on("end", () => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  const inbox = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/inbox`;
  try {
    await deliver(server.rt, {
      inbox,
      owner: writer.accountId,
      keyId: `${server.url}/users/writer#main-key`,
      body: "{}",
    });
    assert.equal(requests, 1);
  } finally {
    refusing.close();
    refusing.closeAllConnections();
  }
});

test("deliveries to servers that hang leave a slot to local jobs: a follower's home gets the post meanwhile", async () => {
  // A server that takes every delivery and never answers, until the test lets go.
  let received = 0;
  let ended = 0;
  const hanging = createServer((req) => {
    received++;
    req.resume();
    req.socket.once("close", () => ended++);
  });
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  // The deliveries hang longer than the test may take on a busy machine.
  const busy = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true", DELIVERY_TIMEOUT_SECONDS: "600" } });
  try {
    const alice = await busy.user("alice");
    const bob = await busy.user("bob");
    await follow(busy, bob, alice);
    const inbox = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/inbox`;
    for (let i = 0; i < 8; i++) {
      const body = JSON.stringify({ n: i });
      await busy.rt.queue.enqueue("federation.deliver", {
        inbox,
        owner: alice.accountId,
        keyId: `${busy.url}/users/alice#main-key`,
        body,
      });
    }
    // Two deliveries wait on the server, the others claimed wait for their turn to it.
    await until(() => received >= 2, 60_000, "deliveries to reach the hanging server");
    const posted = await busy.post("/api/v1/statuses", { token: alice.token, json: { status: "meanwhile" } });
    assert.equal(posted.status, 200, posted.text);
    let home: { id: string }[] = [];
    const deadline = Date.now() + 60_000;
    while (!home.some((s) => s.id === posted.body.id) && Date.now() < deadline) {
      home = (await busy.get("/api/v1/timelines/home", { token: bob.token })).body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(
      home.some((s) => s.id === posted.body.id),
      "the fan-out ran",
    );
    // It ran while every delivery still hung: none had given up and freed its slot.
    assert.equal(ended, 0);
    const held = await busy.rt.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "federation.deliver")
      .where("locked_by", "is not", null)
      .execute();
    assert.equal(held.length, 3);
  } finally {
    hanging.closeAllConnections();
    hanging.close();
    await busy.close();
  }
});

// A client that goes away in the middle of sending its body is not a server error: the request ends
// with an info line, nothing at error level, and the server keeps answering.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import type { LogRecord } from "@logtape/logtape";
import { captureLogs, stopCapturingLogs } from "./log_capture.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let records: LogRecord[];
before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  records = await captureLogs(["rookery"], "debug");
});
after(async () => {
  await server.close();
  await stopCapturingLogs();
});

/** Sends the headers and the first half of `body`, then closes the connection. */
function sendHalf(method: string, path: string, contentType: string, body: string): Promise<void> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${alice.token}\r\n` +
          `Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
          body.slice(0, body.length / 2),
      );
      // Long enough for the server to start reading the body.
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 100);
    });
    socket.on("error", reject);
  });
}

async function waitForLine(pattern: RegExp): Promise<LogRecord> {
  for (let i = 0; i < 100; i++) {
    const found = records.find((r) => pattern.test(String(r.rawMessage)));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line matching ${pattern}`);
}

test("a body cut short by the client is logged at info, never as an error", async () => {
  const body = JSON.stringify({ status: "x".repeat(400) });
  await sendHalf("POST", "/api/v1/statuses", "application/json", body);
  await sendHalf("POST", "/api/v1/statuses", "application/x-www-form-urlencoded", `status=${"y".repeat(400)}`);
  const boundary = "----cut";
  await sendHalf(
    "PATCH",
    "/api/v1/accounts/update_credentials",
    `multipart/form-data; boundary=${boundary}`,
    `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\n` +
      `Content-Type: image/png\r\n\r\n${"z".repeat(4000)}\r\n--${boundary}--\r\n`,
  );
  const line = await waitForLine(/closed the connection before sending the whole body/);
  assert.equal(line.level, "info");
  assert.equal(line.properties.path, "/api/v1/statuses");
  // All three requests end, each with its access line.
  for (let i = 0; i < 100 && records.filter((r) => r.properties.status === 400).length < 3; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(
    records
      .filter((r) => r.properties.status !== undefined)
      .map((r) => `${r.properties.path} ${r.properties.status}`)
      .sort(),
    ["/api/v1/accounts/update_credentials 400", "/api/v1/statuses 400", "/api/v1/statuses 400"],
  );
  assert.deepEqual(
    records.filter((r) => r.level === "error" || r.level === "fatal" || r.level === "warning"),
    [],
  );
  const after = await server.post("/api/v1/statuses", { token: alice.token, json: { status: "Still here" } });
  assert.equal(after.status, 200);
  assert.equal(after.body.content, "<p>Still here</p>");
});

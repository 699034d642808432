// The outgoing fetcher: which addresses it refuses, and that the address it checks is the one it
// connects to (DNS rebinding), on every redirect hop, within its deadline and size cap.
import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { isPublicAddress } from "../src/net/addresses.ts";
import { createFetcher, FetchError } from "../src/net/fetch.ts";
import { outgoing } from "../src/net/outgoing.ts";

const REFUSED = [
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "10.255.255.255",
  "100.64.0.1",
  "100.127.255.254",
  "127.0.0.1",
  "127.1.2.3",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.8",
  "192.0.2.1",
  "192.88.99.1",
  "192.168.1.1",
  "198.18.0.1",
  "198.19.255.255",
  "198.51.100.7",
  "203.0.113.9",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "[::1]",
  "::127.0.0.1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:10.1.2.3",
  "::ffff:169.254.169.254",
  "::ffff:0.0.0.0",
  "64:ff9b::10.0.0.1",
  "64:ff9b::7f00:1",
  "64:ff9b:1::1",
  "2002:7f00:1::1",
  "2002:c0a8:101::",
  "100::1",
  "2001::1",
  "2001:db8::1",
  "3fff::1",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "febf::1",
  "fec0::1",
  "ff02::1",
  "ff05::2",
  "1::",
  "not an address",
  "",
];

const ALLOWED = [
  "1.1.1.1",
  "8.8.8.8",
  "9.9.9.9",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.1",
  "192.169.0.1",
  "198.20.0.1",
  "223.255.255.255",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "64:ff9b::8.8.8.8",
  "2002:808:808::1",
  "2606:4700:4700::1111",
  "2a00:1450:4001:830::200e",
  "2001:4860:4860::8888",
];

describe("address rules", () => {
  for (const address of REFUSED) {
    test(`refuses ${JSON.stringify(address)}`, () => assert.equal(isPublicAddress(address), false));
  }
  for (const address of ALLOWED) {
    test(`allows ${address}`, () => assert.equal(isPublicAddress(address), true));
  }
});

describe("fetcher", () => {
  let server: Server;
  let port: number;
  const seen: { path: string; localAddress: string; userAgent: string; method: string; body: string }[] = [];
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    "/hello": (_req, res) => res.end("hello"),
    "/big": (_req, res) => res.end("x".repeat(5000)),
    "/stream": (_req, res) => {
      // No Content-Length: the cap must hold while reading.
      res.write("y".repeat(3000));
      res.end("y".repeat(3000));
    },
    "/slow": () => {},
    "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
    "/to-hello": (_req, res) => res.writeHead(303, { location: "/hello" }).end(),
    "/to-other-loopback": (_req, res) => res.writeHead(307, { location: `http://127.0.0.2:${port}/hello` }).end(),
    "/to-rebinding-name": (_req, res) => res.writeHead(308, { location: `http://other.test:${port}/hello` }).end(),
  };

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const path = new URL(req.url ?? "/", "http://x").pathname;
        seen.push({
          path,
          localAddress: req.socket.localAddress ?? "",
          userAgent: req.headers["user-agent"] ?? "",
          method: req.method ?? "",
          body,
        });
        res.setHeader("connection", "close");
        (routes[path] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
      });
    });
    // Every loopback address, so that 127.0.0.2 answers too.
    await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  /** Allows 127.0.0.1 only: it stands for a public address; every other address is "private". */
  const onlyFirstLoopback = (resolve: (host: string) => Promise<LookupAddress[]>) =>
    createFetcher({
      allowPrivateAddresses: true,
      userAgent: "Rookery/test",
      resolve,
      allowAddress: (a) => a === "127.0.0.1",
    });
  const fixed = (address: string) => async () => [{ address, family: 4 }];

  test("refuses loopback, https only and private names by default", async () => {
    const fetch = createFetcher({ allowPrivateAddresses: false, userAgent: "Rookery/test" });
    for (const url of [
      `https://127.0.0.1:${port}/hello`,
      `https://[::1]:${port}/hello`,
      `https://[::ffff:127.0.0.1]:${port}/hello`,
      `https://2130706433:${port}/hello`,
      `https://0x7f.1:${port}/hello`,
      `https://localhost:${port}/hello`,
      `http://example.com/`,
      "ftp://example.com/",
      "file:///etc/passwd",
    ]) {
      await assert.rejects(fetch(url), (e: FetchError) => e instanceof FetchError && e.reason === "refused", url);
    }
    assert.equal(seen.length, 0);
  });

  test("a name with a private address among its answers is refused", async () => {
    const fetch = createFetcher({
      allowPrivateAddresses: false,
      userAgent: "Rookery/test",
      resolve: async () => [
        { address: "93.184.215.14", family: 4 },
        { address: "10.0.0.5", family: 4 },
      ],
    });
    await assert.rejects(fetch("https://mixed.test/"), (e: FetchError) => {
      assert.equal(e.reason, "refused");
      assert.match(e.message, /mixed\.test resolves to 10\.0\.0\.5/);
      return true;
    });
  });

  test("ALLOW_PRIVATE_ADDRESSES lets http and loopback through, with Rookery's User-Agent", async () => {
    const config = loadConfig({ LOCAL_DOMAIN: "social.example", ALLOW_PRIVATE_ADDRESSES: "true" });
    const response = await outgoing(config)(`http://127.0.0.1:${port}/hello`);
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), "hello");
    assert.match(seen.at(-1)!.userAgent, /^Rookery\/\d+\.\d+\.\d+ \(\+https:\/\/social\.example\/\)$/);
    assert.equal(loadConfig({}).allowPrivateAddresses, false);
  });

  test("DNS rebinding: the connection goes to the address that was checked", async () => {
    // The first answer passes the check; every later one is private. A fetcher that resolved
    // again to connect would reach the private address.
    let calls = 0;
    const fetch = onlyFirstLoopback(async () => [{ address: calls++ === 0 ? "127.0.0.1" : "127.0.0.2", family: 4 }]);
    const before = seen.length;
    const response = await fetch(`http://rebind.test:${port}/hello`);
    assert.equal(response.body.toString(), "hello");
    assert.equal(calls, 1);
    assert.equal(seen.at(-1)!.localAddress, "127.0.0.1");
    // The next connection asks again and is refused before anything is sent.
    await assert.rejects(fetch(`http://rebind.test:${port}/hello`), (e: FetchError) => e.reason === "refused");
    assert.equal(seen.length, before + 1);
  });

  test("every redirect hop is checked", async () => {
    let calls = 0;
    const fetch = onlyFirstLoopback(async (host) => {
      calls++;
      return [{ address: host === "other.test" ? "127.0.0.2" : "127.0.0.1", family: 4 }];
    });
    await assert.rejects(fetch(`http://a.test:${port}/to-other-loopback`), (e: FetchError) => e.reason === "refused");
    await assert.rejects(fetch(`http://a.test:${port}/to-rebinding-name`), (e: FetchError) => e.reason === "refused");
    assert.ok(calls >= 3);
    assert.ok(!seen.some((s) => s.localAddress === "127.0.0.2"));
    const followed = await fetch(`http://a.test:${port}/to-hello`, { method: "POST", body: "data" });
    assert.equal(followed.body.toString(), "hello");
    assert.equal(followed.url, `http://a.test:${port}/hello`);
    assert.deepEqual(
      seen.slice(-2).map((s) => [s.method, s.path, s.body]),
      [
        ["POST", "/to-hello", "data"],
        ["GET", "/hello", ""],
      ],
    );
  });

  test("redirects are limited", async () => {
    const fetch = onlyFirstLoopback(fixed("127.0.0.1"));
    await assert.rejects(
      fetch(`http://a.test:${port}/loop`, { maxRedirects: 2 }),
      (e: FetchError) => e.reason === "too_many_redirects",
    );
  });

  test("the response size is capped, declared or not", async () => {
    const fetch = onlyFirstLoopback(fixed("127.0.0.1"));
    await assert.rejects(
      fetch(`http://a.test:${port}/big`, { maxBytes: 4096 }),
      (e: FetchError) => e.reason === "too_large",
    );
    await assert.rejects(
      fetch(`http://a.test:${port}/stream`, { maxBytes: 4096 }),
      (e: FetchError) => e.reason === "too_large",
    );
    assert.equal((await fetch(`http://a.test:${port}/big`, { maxBytes: 5000 })).body.length, 5000);
  });

  test("a silent peer times out", async () => {
    const fetch = onlyFirstLoopback(fixed("127.0.0.1"));
    // Its own deadline, not the default one: it gives up before a request with a longer deadline
    // started earlier, however slow the machine (the timers fire in order of their deadlines).
    const gaveUp: string[] = [];
    const earlier = fetch(`http://a.test:${port}/slow`, { timeoutMs: 3000 }).finally(() => gaveUp.push("earlier"));
    await assert.rejects(
      fetch(`http://a.test:${port}/slow`, { timeoutMs: 300 }).finally(() => gaveUp.push("own")),
      (e: FetchError) => e.reason === "timeout",
    );
    await assert.rejects(earlier, (e: FetchError) => e.reason === "timeout");
    assert.deepEqual(gaveUp, ["own", "earlier"]);
  });

  test("a name that does not resolve is a network failure", async () => {
    const fetch = onlyFirstLoopback(async () => {
      throw new Error("ENOTFOUND");
    });
    await assert.rejects(fetch("http://nowhere.test/"), (e: FetchError) => e.reason === "network");
  });
});

describe("kept-alive connections", () => {
  test("a request on a connection the peer closes unanswered goes again on a new one, once", async () => {
    // Answers the first request of each connection and keeps it open; a second request on it finds
    // the connection closed, as a server that gave it up as idle just then does. /never is never answered.
    const requests: string[] = [];
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => {
      sockets.add(socket);
      let answered = false;
      socket.on("data", (chunk) => {
        const path = chunk.toString("latin1").split(" ")[1];
        requests.push(path);
        if (answered || path === "/never") return void socket.destroy();
        answered = true;
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const fetch = createFetcher({ allowPrivateAddresses: true, userAgent: "Rookery/test" });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      assert.equal((await fetch(`${url}/first`, { method: "POST", body: "1" })).status, 200);
      const again = await fetch(`${url}/second`, { method: "POST", body: "2" });
      assert.equal(again.status, 200);
      assert.equal(again.body.toString(), "hello");
      assert.deepEqual(requests, ["/first", "/second", "/second"]);
      assert.equal(sockets.size, 2);
      // On the kept connection, then on a new one, whose failure is the answer.
      await assert.rejects(fetch(`${url}/never`), (e: FetchError) => e.reason === "network");
      assert.deepEqual(requests.slice(3), ["/never", "/never"]);
      assert.equal(sockets.size, 3);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// Parameters as Mastodon reads them: bracket keys, every body encoding, truthiness, data: URIs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Hono } from "hono";
import { ApiError } from "../src/domain/errors.ts";
import { Upload } from "../src/domain/uploads.ts";
import { boundaryOf, MalformedMultipart, parseMultipart } from "../src/http/multipart.ts";
import { fileParam, fromSearchParams, releaseBody, requestParams } from "../src/http/params.ts";
import { truthy } from "../src/http/validate.ts";

test("bracket keys nest like Rack", () => {
  const p = fromSearchParams(
    new URLSearchParams(
      "status=hi&media_ids[]=1&media_ids[]=2&poll[options][]=a&poll[options][]=b&poll[expires_in]=300" +
        "&source[privacy]=private&fields_attributes[0][name]=A&fields_attributes[0][value]=x" +
        "&fields_attributes[1][name]=B&keywords_attributes[][keyword]=cat&keywords_attributes[][whole_word]=1" +
        "&keywords_attributes[][keyword]=dog",
    ),
  );
  assert.deepEqual(p, {
    status: "hi",
    media_ids: ["1", "2"],
    poll: { options: ["a", "b"], expires_in: "300" },
    source: { privacy: "private" },
    fields_attributes: { "0": { name: "A", value: "x" }, "1": { name: "B" } },
    keywords_attributes: [{ keyword: "cat", whole_word: "1" }, { keyword: "dog" }],
  });
});

test("a plain key repeated keeps the last value; malformed brackets stay literal", () => {
  assert.deepEqual(fromSearchParams(new URLSearchParams("a=1&a=2")), { a: "2" });
  assert.deepEqual(fromSearchParams(new URLSearchParams("a]b=1&[x]=2")), { "a]b": "1", "[x]": "2" });
});

test("truthiness follows Rails", () => {
  for (const v of ["true", "1", "on", "yes", "TRUE", "anything", true, 1]) assert.equal(truthy(v), true, String(v));
  for (const v of ["false", "0", "off", "no", "f", "FALSE", false, 0]) assert.equal(truthy(v), false, String(v));
  for (const v of ["", null, undefined]) assert.equal(truthy(v), undefined);
});

test("a base64 data: URI is a file parameter", () => {
  const png = Buffer.from("89504e470d0a1a0a", "hex");
  const file = fileParam(`data:image/png;base64,${png.toString("base64")}`, "avatar");
  assert.ok(file instanceof Upload);
  assert.equal(file.type, "image/png");
  assert.deepEqual(file.bytes, png);
  assert.equal(fileParam("", "avatar"), null);
  assert.throws(
    () => fileParam("not a file", "avatar"),
    (e: unknown) => e instanceof ApiError && e.status === 422,
  );
});

// Through a real fetch handler: every body encoding lands in the same object.
const echo = new Hono();
echo.all("/echo", async (c) => c.json(await requestParams(c, 1024 * 1024)));
echo.onError((e, c) => c.json({ error: e.message }, e instanceof ApiError ? e.status : 500));
const call = (init: RequestInit, query = "") => echo.fetch(new Request(`http://x/echo${query}`, init));

test("JSON, form and multipart bodies give the same parameters, merged over the query", async () => {
  const expected = { status: "hello", media_ids: ["1", "2"], poll: { options: ["a", "b"] }, visibility: "unlisted" };
  const json = await call(
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: "hello", "media_ids[]": ["1", "2"], poll: { options: ["a", "b"] } }),
    },
    "?visibility=unlisted",
  );
  assert.deepEqual(await json.json(), expected);

  const form = await call(
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "status=hello&media_ids[]=1&media_ids[]=2&poll[options][]=a&poll[options][]=b",
    },
    "?visibility=unlisted",
  );
  assert.deepEqual(await form.json(), expected);

  const fd = new FormData();
  fd.append("status", "hello");
  fd.append("media_ids[]", "1");
  fd.append("media_ids[]", "2");
  fd.append("poll[options][]", "a");
  fd.append("poll[options][]", "b");
  const multipart = await call({ method: "POST", body: fd }, "?visibility=unlisted");
  assert.deepEqual(await multipart.json(), expected);
});

test("multipart parts as clients write them: preamble, padding, quoting, extended file names, empty parts", () => {
  const body = Buffer.concat([
    Buffer.from(
      "a preamble\r\n--b0undary  \r\n" +
        'Content-Disposition: form-data; name="status"\r\n\r\nh\u00e9llo\r\n\r\n' +
        '--b0undary\r\ncontent-disposition: form-data; name="say \\"hi\\""\r\n\r\n\r\n' +
        '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"; filename*=UTF-8\'\'%C3%A9.jpg\r\n' +
        "Content-Type: image/jpeg\r\n\r\n",
    ),
    Buffer.from([0xff, 0xd8, 0x0d, 0x0a, 0x2d, 0x2d, 0xff]),
    Buffer.from("\r\n--b0undary--\r\nan epilogue"),
  ]);
  assert.equal(boundaryOf('multipart/form-data; boundary="b0undary"'), "b0undary");
  const parts = parseMultipart(body, boundaryOf("multipart/form-data; boundary=b0undary")!);
  assert.deepEqual(parts.slice(0, 2), [
    ["status", "h\u00e9llo\r\n"],
    ['say "hi"', ""],
  ]);
  const [name, file] = parts[2]!;
  assert.equal(name, "file");
  assert.ok(file instanceof Upload);
  assert.equal(file.name, "\u00e9.jpg");
  assert.equal(file.type, "image/jpeg");
  assert.deepEqual(file.bytes, Buffer.from([0xff, 0xd8, 0x0d, 0x0a, 0x2d, 0x2d, 0xff]));
  for (const broken of ["--b0undary\r\nContent-Type: text/plain\r\n\r\nx\r\n--b0undary--", "--b0undary\r\n\r\nx"]) {
    assert.throws(() => parseMultipart(Buffer.from(broken), "b0undary"), MalformedMultipart);
  }
});

test("broken or non-object JSON is a 400, an oversized body a 413", async () => {
  const broken = await call({ method: "POST", headers: { "content-type": "application/json" }, body: "{bad" });
  assert.equal(broken.status, 400);
  assert.match((await broken.json()).error, /invalid JSON/);

  const array = await call({ method: "POST", headers: { "content-type": "application/json" }, body: "[1,2]" });
  assert.equal(array.status, 400);
  assert.equal((await array.json()).error, "Request body must be a JSON object");

  const big = await call({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ x: "y".repeat(25 * 1024 * 1024) }),
  });
  assert.equal(big.status, 413);
});

test("a multipart body past its limit is a 413, with or without a declared length; a malformed one a 400", async () => {
  const fd = new FormData();
  fd.append("file", new Blob([new Uint8Array(2 * 1024 * 1024)], { type: "image/jpeg" }), "big.jpg");
  const encoded = new Request("http://x/", { method: "POST", body: fd });
  const type = encoded.headers.get("content-type")!;
  const bytes = new Uint8Array(await encoded.arrayBuffer());

  const declared = await call({
    method: "POST",
    headers: { "content-type": type, "content-length": String(bytes.byteLength) },
    body: bytes,
  });
  assert.equal(declared.status, 413);
  assert.equal((await declared.json()).error, "Request body is too large");

  // Sent in pieces with no length: counted as it arrives.
  const streamed = await call({
    method: "POST",
    headers: { "content-type": type },
    body: new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.byteLength; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    }),
    duplex: "half",
  } as RequestInit);
  assert.equal(streamed.status, 413);

  const malformed = await call({
    method: "POST",
    headers: { "content-type": "multipart/form-data; boundary=xyz" },
    body: "--xyz\r\nnot a part",
  });
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json()).error, "Error while parsing request body: malformed multipart data");
});

test("a large body's memory is given back when its request ends; a small one, from Node's shared pool, is left alone", async () => {
  const kept: Upload[] = [];
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    releaseBody(c);
  });
  app.post("/", async (c) => {
    const p = await requestParams(c, 16 * 1024 * 1024);
    const file = fileParam(p.file, "file")!;
    // What the handler sees during the request is the whole file.
    assert.equal(file.bytes[0], 7);
    kept.push(file);
    return c.json({ size: file.size });
  });
  const send = async (size: number) => {
    const fd = new FormData();
    fd.append("file", new Blob([new Uint8Array(size).fill(7)], { type: "image/jpeg" }), "a.jpg");
    const encoded = new Request("http://x/", { method: "POST", body: fd });
    const bytes = new Uint8Array(await encoded.arrayBuffer());
    const res = await app.fetch(
      new Request("http://x/", {
        method: "POST",
        headers: { "content-type": encoded.headers.get("content-type")!, "content-length": String(bytes.byteLength) },
        body: bytes,
      }),
    );
    return (await res.json()).size as number;
  };
  assert.equal(await send(1024 * 1024), 1024 * 1024);
  assert.equal(kept[0]!.size, 0, "the large body was detached after the answer");
  const pooled = Buffer.from("a pooled buffer");
  assert.equal(await send(100), 100);
  assert.equal(kept[1]!.size, 100, "a small body stays");
  assert.equal(pooled.toString(), "a pooled buffer");
});

// The baseline: the fastest answer Node's own HTTP server gives on this machine.
import { createServer } from "node:http";

const port = Number(process.env.PORT);
createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/plain" });
  res.end("hello world");
}).listen(port, "127.0.0.1", () => process.send?.("ready"));

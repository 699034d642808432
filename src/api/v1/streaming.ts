// Streaming (/api/v1/streaming): a WebSocket carrying any number of streams, or one stream per
// Server-Sent Events response, answered by whichever thread accepted the connection. The hub
// (src/streaming/hub.ts) turns bus events into the frames each connection receives.
import { upgradeWebSocket } from "@hono/node-server";
import type { MiddlewareHandler } from "hono";
import { streamSSE } from "hono/streaming";
import type { WebSocket } from "ws";
import { ApiError } from "../../domain/errors.ts";
import { inactiveReason } from "../../domain/user_state.ts";
import { type AppEnv, type Ctx, router } from "../../http/hono.ts";
import { type Auth, authenticate } from "../../services/auth/authenticate.ts";
import { type Connection, type Frame, hubOf, serialized } from "../../streaming/hub.ts";
import { resolveStream, StreamError, streamOfPath, type Viewer } from "../../streaming/streams.ts";
import { tokenOf } from "../auth.ts";

export const streamingApi = router();

/** The token a client sent: as for every API call, or as the WebSocket subprotocol (browsers can set no header). */
function streamingToken(c: Ctx): string | null {
  return tokenOf(c) ?? c.req.header("sec-websocket-protocol")?.split(",")[0]?.trim() ?? null;
}

/**
 * Who is listening. A token, when sent, must be a valid user token with a read scope (401
 * otherwise, at the upgrade); without one, only public streams open, and only with public preview.
 */
async function viewerOf(c: Ctx): Promise<{ token: string | null; viewer: Viewer | null }> {
  const token = streamingToken(c);
  if (!token) {
    if (!c.get("rt").config.publicPreview) throw new ApiError(401, "Missing access token");
    return { token: null, viewer: null };
  }
  const auth: Auth | null = c.get("auth") ?? (await authenticate(c.get("rt"), token));
  if (!auth) throw new ApiError(401, "The access token is invalid");
  if (!auth.user || inactiveReason(auth.user)) throw new ApiError(401, "This method requires an authenticated user");
  if (!["read", "read:statuses", "read:notifications"].some((s) => auth.scopes.includes(s)))
    throw new ApiError(401, "Access token does not have the required scopes");
  return { token, viewer: { accountId: auth.user.accountId, scopes: auth.scopes } };
}

const isUpgrade = (c: Ctx) => c.req.header("upgrade")?.toLowerCase() === "websocket";

/**
 * With STREAMING_URL on another host, plain requests for streaming go there, as Mastodon redirects
 * them (the same URL on the streaming host). WebSocket upgrades are always served here.
 */
const redirectElsewhere: MiddlewareHandler<AppEnv> = async (c, next) => {
  const target = c.get("rt").config.streamingUrl;
  if (!target || isUpgrade(c)) return next();
  const base = new URL(target);
  const url = new URL(c.req.url);
  if (url.host === base.host) return next();
  url.hostname = base.hostname;
  url.port = base.port;
  return c.redirect(url.toString(), 301);
};

streamingApi.use("/api/v1/streaming", redirectElsewhere);
streamingApi.use("/api/v1/streaming/*", redirectElsewhere);

streamingApi.get("/api/v1/streaming/health", (c) => c.text("OK"));

streamingApi.get(
  "/api/v1/streaming",
  upgradeWebSocket(async (c) => {
    // Called for plain requests too, which then go on to the next handler.
    if (!isUpgrade(c)) return {};
    const { token, viewer } = await viewerOf(c);
    const rt = c.get("rt");
    const hub = hubOf(rt);
    const first = { stream: c.req.query("stream"), tag: c.req.query("tag"), list: c.req.query("list") };
    let conn: Connection | null = null;

    const subscribe = async (socket: WebSocket, message: Record<string, unknown>) => {
      const name = typeof message.stream === "string" ? message.stream : "";
      const params = {
        tag: typeof message.tag === "string" ? message.tag : null,
        list: typeof message.list === "string" ? message.list : null,
      };
      try {
        const stream = await resolveStream(rt, viewer, name, params);
        if (!conn) return;
        if (message.type === "unsubscribe") hub.unsubscribe(conn, stream.label);
        else hub.subscribe(conn, stream);
      } catch (error) {
        if (!(error instanceof StreamError)) throw error;
        if (socket.readyState === 1) socket.send(JSON.stringify({ error: error.message, status: error.status }));
      }
    };

    return {
      onOpen(_event, ws) {
        const socket = ws.raw as WebSocket;
        conn = {
          token,
          viewer,
          send(frame: Frame) {
            if (socket.readyState === 1) socket.send(serialized(frame), { binary: false });
          },
          heartbeat() {
            if (socket.readyState === 1) socket.ping();
          },
          close() {
            socket.close(1000, "");
          },
        };
        hub.open(conn);
        if (first.stream) void subscribe(socket, { type: "subscribe", ...first });
      },
      onMessage(event, ws) {
        const socket = ws.raw as WebSocket;
        let message: unknown;
        try {
          message = JSON.parse(String(event.data));
        } catch {
          message = null;
        }
        if (!message || typeof message !== "object") {
          socket.send(JSON.stringify({ error: "Invalid JSON message", status: 400 }));
          return;
        }
        const m = message as Record<string, unknown>;
        if (m.type === "subscribe" || m.type === "unsubscribe") void subscribe(socket, m);
      },
      onClose() {
        if (conn) hub.close(conn);
      },
    };
  }),
  // A plain GET: streaming is served here, by WebSocket or at the SSE paths.
  (c) => c.json({ error: "Record not found" }, 404),
);

streamingApi.get("/api/v1/streaming/*", async (c) => {
  const rest = c.req.path.slice("/api/v1/streaming".length);
  const onlyMedia = ["1", "true"].includes(c.req.query("only_media") ?? "");
  const name = streamOfPath(rest, onlyMedia);
  if (!name) return c.json({ error: "Unknown channel requested" }, 400);
  const { token, viewer } = await viewerOf(c);
  const rt = c.get("rt");
  let stream: Awaited<ReturnType<typeof resolveStream>>;
  try {
    stream = await resolveStream(rt, viewer, name, { tag: c.req.query("tag"), list: c.req.query("list") });
  } catch (error) {
    if (error instanceof StreamError) return c.json({ error: error.message }, error.status as 400);
    throw error;
  }
  const hub = hubOf(rt);
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (sse) => {
    let resolveClosed = () => {};
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    const conn: Connection = {
      token,
      viewer,
      send(frame) {
        // `filters_changed` has no payload; Mastodon's SSE still sends a data line.
        void sse.write(`event: ${frame.event}\ndata: ${frame.payload ?? "undefined"}\n\n`);
      },
      // Comments end with one newline, as Mastodon's do: a blank line after one is an event without
      // data, which Mastodon.py takes for a malformed event and stops listening.
      heartbeat() {
        void sse.write(":thump\n");
      },
      close: resolveClosed,
    };
    sse.onAbort(resolveClosed);
    hub.open(conn);
    hub.subscribe(conn, stream);
    await sse.write(":)\n");
    await closed;
    hub.close(conn);
  });
});

// GET /api/oembed: the oEmbed document of a local public post, for sites embedding it. No token
// needed; `maxwidth` (400 by default) and `maxheight` size the iframe, as on Mastodon.
import { z } from "zod";
import { params, router } from "../http/hono.ts";
import { parse, zString } from "../http/validate.ts";
import { renderOEmbed } from "../serializers/oembed.ts";
import { embeddedStatus } from "../services/statuses/oembed.ts";

export const oembedApi = router();

const DEFAULT_WIDTH = 400;

/** A size in pixels: a positive whole number, else none (the default). */
const size = (v: string | undefined) => {
  const n = v !== undefined && /^\d{1,5}$/.test(v.trim()) ? Number(v) : 0;
  return n > 0 ? n : null;
};

const schema = z.object({ url: zString(), maxwidth: zString(), maxheight: zString() });

oembedApi.get("/api/oembed", async (c) => {
  const p = parse(schema, await params(c));
  const status = await embeddedStatus(c.get("rt"), p.url ?? "");
  return c.json(
    renderOEmbed(c.get("rt").config, status, {
      width: size(p.maxwidth) ?? DEFAULT_WIDTH,
      height: size(p.maxheight),
    }),
  );
});

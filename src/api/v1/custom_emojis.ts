import { router } from "../../http/hono.ts";
import { renderCustomEmojis } from "../../serializers/custom_emoji.ts";
import { localEmojis } from "../../services/emojis/custom_emojis.ts";

export const customEmojis = router();

// Public, and the same for everyone: shared caches may keep it for a few minutes, as Mastodon's.
// Unlisted emojis are listed too, with visible_in_picker false, so that clients can show them in
// statuses while leaving them out of the picker.
customEmojis.get("/api/v1/custom_emojis", async (c) => {
  c.header("Cache-Control", "public, max-age=180");
  return c.json(renderCustomEmojis(c.var.rt.config, [...(await localEmojis(c.var.rt)).values()]));
});

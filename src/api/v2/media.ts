import { router } from "../../http/hono.ts";
import { createMedia } from "../../services/media/upload.ts";
import { currentUser, requireUser } from "../auth.ts";
import { mediaResponse, uploadOf } from "../v1/media.ts";

export const mediaV2 = router();

// Small images are processed at once (200); anything else answers 202 and a job processes it.
mediaV2.post("/api/v2/media", requireUser("write:media"), async (c) => {
  const row = await createMedia(c.get("rt"), currentUser(c).accountId, await uploadOf(c), false);
  return mediaResponse(c, row, 202);
});

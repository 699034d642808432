import { router } from "../../http/hono.ts";
import { preparedResponse } from "../prepared_routes.ts";

export const customEmojis = router();

// Public and the same for everyone: prepared bytes (src/api/prepared_routes.ts), here for the
// requests the fast path lets through (a query string, a method other than GET).
customEmojis.get("/api/v1/custom_emojis", (c) => preparedResponse(c, "/api/v1/custom_emojis"));

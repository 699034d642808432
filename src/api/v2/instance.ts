import { router } from "../../http/hono.ts";
import { preparedResponse } from "../prepared_routes.ts";

export const instanceV2 = router();

instanceV2.get("/api/v2/instance", (c) => preparedResponse(c, "/api/v2/instance"));

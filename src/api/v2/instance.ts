import { router } from "../../http/hono.ts";
import { instanceV2Entity } from "../../serializers/instance.ts";
import { instanceCached } from "../../services/instance/cached.ts";
import { instanceFacts } from "../../services/instance/instance.ts";

export const instanceV2 = router();

instanceV2.get("/api/v2/instance", async (c) =>
  c.json(await instanceCached(c.var.rt, "v2", async () => instanceV2Entity(c.var.rt, await instanceFacts(c.var.rt)))),
);

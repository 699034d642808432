import { router } from "../../http/hono.ts";
import { renderPreferences } from "../../serializers/preferences.ts";
import { userSettings } from "../../services/accounts/preferences.ts";
import { currentUser, requireUser } from "../auth.ts";

export const preferences = router();

preferences.get("/api/v1/preferences", requireUser("read:accounts"), async (c) =>
  c.json(renderPreferences(await userSettings(c.get("rt"), currentUser(c).id))),
);

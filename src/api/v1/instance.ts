import { notFound } from "../../domain/errors.ts";
import { languageList } from "../../domain/languages.ts";
import { markdownToHtml } from "../../domain/text/markdown.ts";
import { router } from "../../http/hono.ts";
import { renderDomainBlock, renderRule, renderTerms } from "../../serializers/instance.ts";
import { instanceCached } from "../../services/instance/cached.ts";
import { activity, peers } from "../../services/instance/instance.ts";
import { rules } from "../../services/instance/rules.ts";
import { currentTerms, privacyPolicy, siteText, termsVersions } from "../../services/instance/texts.ts";
import { domainBlocks } from "../../services/moderation/domain_blocks.ts";
import { viewerId } from "../auth.ts";
import { preparedResponse } from "../prepared_routes.ts";

export const instanceV1 = router();

instanceV1.get("/api/v1/instance", (c) => preparedResponse(c, "/api/v1/instance"));

instanceV1.get("/api/v1/instance/peers", async (c) =>
  c.json(await instanceCached(c.get("rt"), "peers", () => peers(c.get("rt")))),
);

instanceV1.get("/api/v1/instance/activity", async (c) =>
  c.json(await instanceCached(c.get("rt"), "activity", () => activity(c.get("rt")))),
);

instanceV1.get("/api/v1/instance/rules", async (c) => c.json((await rules(c.get("rt"))).map(renderRule)));

instanceV1.get("/api/v1/instance/extended_description", async (c) => {
  const text = await siteText(c.get("rt"), "extended_description");
  return c.json({ updated_at: text?.updated_at ?? null, content: text ? markdownToHtml(text.text) : "" });
});

instanceV1.get("/api/v1/instance/privacy_policy", async (c) => c.json(await privacyPolicy(c.get("rt"))));

instanceV1.get("/api/v1/instance/terms_of_service", async (c) => {
  const versions = await termsVersions(c.get("rt"));
  const current = currentTerms(versions);
  if (!current) throw notFound();
  return c.json(renderTerms(versions, current));
});

instanceV1.get("/api/v1/instance/terms_of_service/:date", async (c) => {
  const versions = await termsVersions(c.get("rt"));
  const version = versions.find((v) => v.effective_date === c.req.param("date"));
  if (!version) throw notFound();
  return c.json(renderTerms(versions, version));
});

instanceV1.get("/api/v1/instance/languages", (c) => c.json(languageList()));

// Translation is not offered, so there are no language pairs, as Mastodon answers without a translator.
instanceV1.get("/api/v1/instance/translation_languages", (c) => c.json({}));

instanceV1.get("/api/v1/instance/domain_blocks", async (c) => {
  const show = c.get("rt").config.showDomainBlocks;
  const signedIn = viewerId(c) !== null;
  if (show === "disabled" || (show === "users" && !signedIn)) throw notFound();
  const blocks = (await domainBlocks(c.get("rt"))).filter((b) => b.severity !== "noop" || b.reject_media);
  return c.json(blocks.map((b) => renderDomainBlock(b, true)));
});

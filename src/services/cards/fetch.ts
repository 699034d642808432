// Job "cards.fetch": gives a status the preview card of its first link (src/domain/link_cards),
// after it is posted or edited. One card per URL, shared by every status linking it: a card
// fetched in the last REFRESH_MS is reused, and a job that finds another fetching the same URL
// (its lease, `fetching_until`) links the status and leaves: the fetcher tells every status that
// waited once the card is there. Everything goes through src/net (its address rules, a deadline,
// a byte cap); a page that fails is tried again after RETRY_MS, not by every status that links it.
import type { Db } from "../../db/index.ts";
import { newId } from "../../domain/ids.ts";
import { isLanguage } from "../../domain/languages.ts";
import { linkToPreview } from "../../domain/link_cards/links.ts";
import { type CardDetails, cardFromOEmbed, oEmbedEndpoint } from "../../domain/link_cards/oembed.ts";
import { cardFromPage, decodePage, readPage } from "../../domain/link_cards/page.ts";
import { randomToken } from "../../domain/secrets.ts";
import { logger } from "../../log.ts";
import { detectImage, previewOf } from "../../media/process.ts";
import { mediaStorage } from "../../media/storage.ts";
import { FetchError } from "../../net/fetch.ts";
import { outgoing } from "../../net/outgoing.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { domainPolicy } from "../moderation/federation_policy.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** The preview card of a status's first link, fetched (or found) and attached. */
    "cards.fetch": { statusId: string };
  }
}

/** Mastodon refetches a card two weeks after it fetched it. */
const REFRESH_MS = 14 * 86_400_000;
const RETRY_MS = 3_600_000;
/** Longer than the three fetches of a card (page, oEmbed, image) can take together. */
const LEASE_MS = 60_000;
const PAGE_TIMEOUT_MS = 10_000;
/** Mastodon reads at most 1 MB of a page. */
const PAGE_BYTES = 1024 * 1024;
const IMAGE_BYTES = 8 * 1024 * 1024;
const IMAGE_PIXELS = 33_177_600;
const IMAGE_SIDE = 400;
const IMAGE_FORMATS = ["jpeg", "png", "webp", "gif"];

const log = logger("cards");

/** The longest URL kept (a longer one is no link to preview: PostgreSQL indexes at most about 2.7 kB a key). */
const MAX_URL = 2_048;

/** Text from a page as a card keeps it: without NUL characters (PostgreSQL's text holds none), and bounded. */
function clip(text: string, max: number): string {
  const clean = text.replaceAll("\u0000", "").trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

const urlOrEmpty = (url: string) => (url.length <= MAX_URL ? url : "");

/** The link to preview in a status, or null: none, or none it may have a card for. */
async function statusLink(rt: Runtime, statusId: string): Promise<string | null> {
  const status = await rt.db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["s.content", "s.uri", "s.url", "s.deleted_at", "s.reblog_of_id", "a.domain"])
    .where("s.id", "=", statusId)
    .executeTakeFirst();
  if (!status || status.deleted_at || status.reblog_of_id) return null;
  // A server whose media are rejected gets no cards either (Mastodon skips their downloads).
  if ((await domainPolicy(rt, status.domain)).rejectMedia) return null;
  const mentions = await rt.db
    .selectFrom("status_mentions as m")
    .innerJoin("accounts as a", "a.id", "m.account_id")
    .select(["a.url", "a.uri"])
    .where("m.status_id", "=", statusId)
    .execute();
  const link = linkToPreview(status.content, {
    mentionUrls: mentions.flatMap((m) => (m.url ? [m.url, m.uri] : [m.uri])),
    ownUrls: status.url ? [status.uri, status.url] : [status.uri],
    origin: rt.config.origin,
  });
  if (!link || link.length > MAX_URL) return null;
  const policy = await domainPolicy(rt, new URL(link).host);
  return policy.refused || policy.rejectMedia ? null : link;
}

/** Whether a card has something to show: an empty one is waiting for its first fetch, or failed. */
const cardReady = (c: { title: string; html: string }) => c.title !== "" || c.html !== "";

/**
 * Links the status to the card of `url` (made empty when new), and says whether that changed what
 * the status shows. The card's row is locked first: a fetch that ends at the
 * same time either sees this link or is seen to have ended.
 */
async function linkStatus(rt: Runtime, statusId: string, url: string) {
  const now = new Date();
  await rt.db
    .insertInto("preview_cards")
    .values({ id: newId(), url, stale_at: now, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("url").doNothing())
    .execute();
  return rt.db.transaction().execute(async (trx) => {
    const card = await trx
      .selectFrom("preview_cards")
      .select(["id", "title", "html"])
      .where("url", "=", url)
      .$if(rt.dialect === "postgres", (q) => q.forUpdate())
      .executeTakeFirstOrThrow();
    const current = await trx
      .selectFrom("preview_cards_statuses as pcs")
      .innerJoin("preview_cards as c", "c.id", "pcs.preview_card_id")
      .select(["pcs.preview_card_id", "c.title", "c.html"])
      .where("pcs.status_id", "=", statusId)
      .executeTakeFirst();
    const changed = current?.preview_card_id !== card.id;
    if (changed) {
      await trx
        .insertInto("preview_cards_statuses")
        .values({ status_id: statusId, preview_card_id: card.id, url })
        .onConflict((oc) => oc.column("status_id").doUpdateSet({ preview_card_id: card.id, url }))
        .execute();
    }
    // What the status shows changes when it shows the new card now, or showed another before.
    const shown = changed && (cardReady(card) || (current !== undefined && cardReady(current)));
    return { cardId: card.id, shown };
  });
}

/** Takes the card's fetch for this job when it is due and no one else holds it. */
async function claim(db: Db, cardId: string): Promise<boolean> {
  const now = new Date();
  const taken = await db
    .updateTable("preview_cards")
    .set({ fetching_until: new Date(now.getTime() + LEASE_MS) })
    .where("id", "=", cardId)
    .where("stale_at", "<=", now)
    .where((eb) => eb.or([eb("fetching_until", "is", null), eb("fetching_until", "<", now)]))
    .returning("id")
    .executeTakeFirst();
  return taken !== undefined;
}

/** What a card tells clients changed about these statuses (caches, and the streams that carried them). */
async function tell(rt: Runtime, ids: string[]): Promise<void> {
  // In parts: a card many statuses link would otherwise make one enormous message on the bus.
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    await publishEvent(rt, "statuses.changed", { ids: part });
    await publishEvent(rt, "statuses.card", { ids: part });
  }
}

export async function fetchCardJob(rt: Runtime, { statusId }: { statusId: string }): Promise<void> {
  const url = await statusLink(rt, statusId);
  if (!url) {
    // An edit took the link away (or it may have no card): the card it had goes.
    const removed = await rt.db.deleteFrom("preview_cards_statuses").where("status_id", "=", statusId).execute();
    if (removed.some((r) => Number(r.numDeletedRows) > 0)) await tell(rt, [statusId]);
    return;
  }
  const linked = await linkStatus(rt, statusId, url);
  if (linked.shown) await tell(rt, [statusId]);
  if (!(await claim(rt.db, linked.cardId))) return;
  const details = await fetchDetails(rt, url).catch((error: unknown) => {
    if (!(error instanceof FetchError)) throw error;
    log.debug("no card", { url, error: error.message });
    return null;
  });
  await storeCard(rt, linked.cardId, url, details);
}

type FetchedCard = CardDetails & { authorAccount: string | null };

/** The page's card: its oEmbed's if it has one (of a kind Mastodon shows), else its own tags'. */
async function fetchDetails(rt: Runtime, url: string): Promise<FetchedCard | null> {
  const fetch = outgoing(rt.config);
  const res = await fetch(url, {
    headers: { accept: "text/html", "accept-language": "en, *;q=0.5" },
    timeoutMs: PAGE_TIMEOUT_MS,
    maxBytes: PAGE_BYTES,
  });
  const contentType = res.headers["content-type"];
  if (res.status !== 200 || contentType?.split(";")[0].trim().toLowerCase() !== "text/html") return null;
  const page = readPage(decodePage(res.body, contentType));
  const fromPage = cardFromPage(page, res.url, isLanguage);
  const endpoint = oEmbedEndpoint(page.links, res.url);
  if (endpoint) {
    const embed = await fetch(endpoint, { headers: { accept: "application/json" }, timeoutMs: PAGE_TIMEOUT_MS })
      .then((r) => (r.status === 200 ? JSON.parse(r.body.toString("utf8")) : null))
      .catch(() => null);
    const card = cardFromOEmbed(embed, endpoint);
    if (card) return { ...card, authorAccount: fromPage?.authorAccount ?? null };
  }
  return fromPage;
}

/** The card's picture, scaled and stored as media are, with its blurhash; null when it cannot be had. */
async function storeImage(rt: Runtime, imageUrl: string) {
  try {
    const res = await outgoing(rt.config)(imageUrl, { timeoutMs: PAGE_TIMEOUT_MS, maxBytes: IMAGE_BYTES });
    if (res.status !== 200) return null;
    const image = await detectImage(res.body);
    if (!image || !IMAGE_FORMATS.includes(image.format) || image.width * image.height > IMAGE_PIXELS) return null;
    const preview = await previewOf(res.body, image.alpha, IMAGE_SIDE);
    const key = `preview_cards/${randomToken(12)}.${preview.file.extension}`;
    await mediaStorage(rt.config).put(key, preview.file.data, preview.file.contentType);
    return {
      key,
      blurhash: preview.blurhash,
      width: Number(preview.small?.width),
      height: Number(preview.small?.height),
    };
  } catch (error) {
    if (error instanceof FetchError) return null;
    throw error;
  }
}

/** The account `fediverse:creator` names (`@user@domain`), when it is known here. */
async function authorAccount(rt: Runtime, handle: string | null): Promise<string | null> {
  const [username = "", domain = ""] = (handle ?? "").trim().replace(/^@/, "").split("@");
  if (!username) return null;
  const local = [rt.config.localDomain, rt.config.webDomain].includes(domain.toLowerCase()) || !domain;
  const row = await rt.db
    .selectFrom("accounts")
    .select("id")
    .where("acct_key", "=", `${username.toLowerCase()}@${local ? "" : domain.toLowerCase()}`)
    .executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Writes what the fetch found (or that it failed: the card stays as it was and is tried again
 * later), then tells the statuses that were waiting for the card, or whose card changed.
 */
async function storeCard(rt: Runtime, cardId: string, url: string, d: FetchedCard | null): Promise<void> {
  const now = new Date();
  if (!d) {
    await rt.db
      .updateTable("preview_cards")
      .set({ stale_at: new Date(now.getTime() + RETRY_MS), fetching_until: null, updated_at: now })
      .where("id", "=", cardId)
      .execute();
    return;
  }
  const image = d.imageUrl && d.imageUrl.length <= MAX_URL ? await storeImage(rt, d.imageUrl) : null;
  const author = await authorAccount(rt, d.authorAccount);
  const host = new URL(url).hostname;
  const { before, ids } = await rt.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("preview_cards")
      .select(["image_key"])
      .where("id", "=", cardId)
      .$if(rt.dialect === "postgres", (q) => q.forUpdate())
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("preview_cards")
      .set({
        type: d.type,
        title: clip(d.title, 1_000),
        description: clip(d.description, 3_000),
        author_name: clip(d.authorName, 500),
        author_url: urlOrEmpty(d.authorUrl),
        author_account_id: author,
        provider_name: clip(d.providerName, 500),
        provider_url: urlOrEmpty(d.providerUrl),
        // A few iframes: more is no embed (and cut, it would be broken HTML).
        html: d.html.length <= 10_000 ? d.html : "",
        // A link card is as large as its picture, as Mastodon measures it.
        width: d.type === "link" && image ? image.width : d.width,
        height: d.type === "link" && image ? image.height : d.height,
        embed_url: urlOrEmpty(d.embedUrl),
        image_key: image?.key ?? null,
        image_description: clip(d.imageDescription, 1_500),
        blurhash: image?.blurhash ?? null,
        language: d.language,
        published_at: d.publishedAt,
        fetched_at: now,
        stale_at: new Date(now.getTime() + REFRESH_MS),
        fetching_until: null,
        updated_at: now,
      })
      .where("id", "=", cardId)
      .execute();
    await trx
      .insertInto("preview_card_providers")
      .values({ id: newId(), domain: host, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column("domain").doNothing())
      .execute();
    const linked = await trx
      .selectFrom("preview_cards_statuses")
      .select("status_id")
      .where("preview_card_id", "=", cardId)
      .execute();
    return { before, ids: linked.map((r) => r.status_id) };
  });
  if (before.image_key) await mediaStorage(rt.config).delete(before.image_key);
  await tell(rt, ids);
}

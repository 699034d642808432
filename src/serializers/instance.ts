// The Instance entities (v2 and the older v1) and the smaller documents about the server.

import type { Config } from "../config.ts";
import { domainDigest, obfuscateDomain } from "../domain/domain_names.ts";
import { markdownToHtml } from "../domain/text/markdown.ts";
import { findFfmpeg } from "../media/ffmpeg.ts";
import { supportedMimeTypes } from "../media/process.ts";
import type { Runtime } from "../runtime.ts";
import type { InstanceFacts } from "../services/instance/instance.ts";
import type { Rule } from "../services/instance/rules.ts";
import type { TermsVersion } from "../services/instance/texts.ts";
import type { DomainBlock } from "../services/moderation/domain_blocks.ts";
import { MASTODON_API_VERSION, VERSION_STRING } from "../version.ts";
import { renderAccountView } from "./account.ts";

export const renderRule = (r: Rule) => ({ id: r.id, text: r.text, hint: r.hint, translations: {} });

function limitsOf(rt: Runtime) {
  const l = rt.config.limits;
  return {
    statuses: {
      max_characters: l.statusChars,
      max_media_attachments: l.mediaAttachments,
      characters_reserved_per_url: l.charsPerUrl,
    },
    media_attachments: {
      supported_mime_types: supportedMimeTypes(findFfmpeg(rt.config) !== null),
      description_limit: l.descriptionChars,
      image_size_limit: l.imageSize,
      image_matrix_limit: l.imageMatrix,
      video_size_limit: l.videoSize,
      video_frame_rate_limit: l.videoFrameRate,
      video_matrix_limit: l.videoMatrix,
    },
    polls: {
      max_options: l.pollOptions,
      max_characters_per_option: l.pollOptionChars,
      min_expiration: l.pollMinExpiration,
      max_expiration: l.pollMaxExpiration,
    },
  };
}

function registrationsOf(rt: Runtime) {
  const r = rt.config.registrations;
  return {
    enabled: r.mode !== "none",
    approval_required: r.mode === "approved",
    reason_required: r.mode === "approved" && r.reasonRequired,
  };
}

function contact(rt: Runtime, facts: InstanceFacts) {
  return facts.contact ? renderAccountView(rt, facts.contact) : null;
}

export function instanceV2Entity(rt: Runtime, facts: InstanceFacts) {
  const { config } = rt;
  const l = config.limits;
  const o = config.origin;
  const reg = registrationsOf(rt);
  return {
    domain: config.localDomain,
    title: config.site.title,
    version: VERSION_STRING,
    source_url: config.sourceUrl,
    description: config.site.description,
    usage: { users: { active_month: facts.activeMonth } },
    thumbnail: { url: `${o}/thumbnail.png` },
    icon: [{ src: `${o}/icon-192.png`, size: "192x192" }],
    languages: config.site.languages,
    configuration: {
      urls: {
        streaming: streamingUrl(config),
        status: null,
        about: `${o}/about`,
        privacy_policy: `${o}/privacy-policy`,
        terms_of_service: null,
      },
      vapid: { public_key: facts.vapidPublicKey },
      accounts: {
        max_featured_tags: l.featuredTags,
        max_pinned_statuses: l.pinnedStatuses,
        max_display_name_length: l.displayNameChars,
        max_note_length: l.bioChars,
        max_profile_fields: l.profileFields,
        profile_field_name_limit: l.profileFieldChars,
        profile_field_value_limit: l.profileFieldChars,
      },
      ...limitsOf(rt),
      translation: { enabled: false },
      limited_federation: false,
    },
    registrations: { ...reg, message: config.registrations.message, min_age: config.registrations.minAge, url: null },
    api_versions: { mastodon: MASTODON_API_VERSION },
    contact: { email: config.site.contactEmail, account: contact(rt, facts) },
    rules: facts.rules.map(renderRule),
  };
}

export function instanceV1Entity(rt: Runtime, facts: InstanceFacts) {
  const { config } = rt;
  const s = facts.stats;
  const reg = registrationsOf(rt);
  return {
    uri: config.localDomain,
    title: config.site.title,
    short_description: config.site.description,
    description: config.site.description,
    email: config.site.contactEmail,
    version: VERSION_STRING,
    urls: { streaming_api: streamingUrl(config) },
    stats: { user_count: s.users, status_count: s.statuses, domain_count: s.domains },
    thumbnail: `${config.origin}/thumbnail.png`,
    languages: config.site.languages,
    registrations: reg.enabled,
    approval_required: reg.approval_required,
    invites_enabled: facts.invitesEnabled,
    configuration: { accounts: { max_featured_tags: config.limits.featuredTags }, ...limitsOf(rt) },
    contact_account: contact(rt, facts),
    rules: facts.rules.map(renderRule),
  };
}

export function renderDomainBlock(b: DomainBlock, withComment: boolean) {
  return {
    domain: b.obfuscate ? obfuscateDomain(b.domain) : b.domain,
    digest: domainDigest(b.domain),
    severity: b.severity,
    comment: withComment ? b.public_comment : null,
  };
}

export function renderTerms(versions: TermsVersion[], v: TermsVersion) {
  const today = new Date().toISOString().slice(0, 10);
  const next = versions.find((x) => x.effective_date > v.effective_date);
  return {
    effective_date: v.effective_date,
    effective: v.effective_date <= today,
    content: markdownToHtml(v.text),
    succeeded_by: next?.effective_date ?? null,
  };
}

/** Where clients open streams: STREAMING_URL, or this origin as ws(s)://. */
function streamingUrl(config: Config): string {
  return config.streamingUrl ?? config.origin.replace(/^http/, "ws");
}

// The admin API's block entities: Admin::DomainBlock, Admin::DomainAllow, Admin::EmailDomainBlock,
// Admin::CanonicalEmailBlock and Admin::IpBlock.
import { domainDigest } from "../domain/domain_names.ts";
import type { CanonicalEmailBlock } from "../services/moderation/canonical_email_blocks.ts";
import type { DomainAllow } from "../services/moderation/domain_allows.ts";
import type { DomainBlock } from "../services/moderation/domain_blocks.ts";
import type { EmailDomainBlock } from "../services/moderation/email_domain_blocks.ts";
import type { IpBlock } from "../services/moderation/ip_blocks.ts";

export function renderAdminDomainBlock(b: DomainBlock) {
  return {
    id: b.id,
    domain: b.domain,
    digest: domainDigest(b.domain),
    created_at: b.created_at.toISOString(),
    severity: b.severity,
    reject_media: b.reject_media,
    reject_reports: b.reject_reports,
    private_comment: b.private_comment,
    public_comment: b.public_comment,
    obfuscate: b.obfuscate,
  };
}

export const renderDomainAllow = (a: DomainAllow) => ({
  id: a.id,
  domain: a.domain,
  created_at: a.created_at.toISOString(),
});

export const renderEmailDomainBlock = (b: EmailDomainBlock) => ({
  id: b.id,
  domain: b.domain,
  created_at: b.created_at.toISOString(),
  history: b.history,
});

export const renderCanonicalEmailBlock = (b: CanonicalEmailBlock) => ({
  id: b.id,
  canonical_email_hash: b.canonical_email_hash,
});

export const renderIpBlock = (b: IpBlock) => ({
  id: b.id,
  ip: b.ip,
  severity: b.severity,
  comment: b.comment,
  created_at: b.created_at.toISOString(),
  expires_at: b.expires_at ? b.expires_at.toISOString() : null,
});

// Domain names as people type them (`Example.COM`, `bücher.example/`) turned into the form accounts
// are stored with: lower case, IDNA (punycode), no trailing slash (Mastodon's DomainValidator rules);
// and how a blocked domain is shown in public.
import { createHash } from "node:crypto";
import { domainToASCII } from "node:url";

const LABEL = /^[a-z0-9-]{1,63}$/;
const MAX_LENGTH = 255;

/** The normal form of a domain, or null when it is not a valid domain name. */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().replace(/\/$/, "");
  if (trimmed === "" || /[\s/@:?#]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (ascii === "" || ascii.length > MAX_LENGTH) return null;
  return ascii.split(".").every((label) => LABEL.test(label)) ? ascii : null;
}

/** The domain and each parent of it: `a.b.example` → `a.b.example`, `b.example`, `example`. */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split(".");
  return labels.map((_, i) => labels.slice(i).join("."));
}

/** The digest published beside a blocked domain, so that the obfuscated name can still be checked. */
export function domainDigest(domain: string): string {
  return createHash("sha256").update(domain).digest("hex");
}

/** Mastodon's obfuscation: the middle of the name starred, dots kept. */
export function obfuscateDomain(domain: string): string {
  const visible = Math.floor(domain.length / 4);
  return [...domain].map((c, i) => (i > visible && i < domain.length - visible && c !== "." ? "*" : c)).join("");
}

// Domain names as people type them (`Example.COM`, `bücher.example/`) turned into the form accounts
// are stored with: lower case, IDNA (punycode), no trailing slash. Mastodon's DomainValidator rules.
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

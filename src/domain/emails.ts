// What an email address must look like to sign up with, and which providers a server accepts.

// One "@", no spaces, and none of the characters that make mail software read an address as
// several (",", "%", quotes, brackets): Mastodon refuses the same ones.
const ADDRESS = /^[^\s@%,"'<>()[\];:\\]+@[^\s@%,"'<>()[\];:\\]+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && ADDRESS.test(value);
}

export interface EmailDomainRules {
  /** Providers refused, with their subdomains. */
  deny: string[];
  /** When not empty, the only providers accepted (with their subdomains). */
  allow: string[];
}

function matches(domain: string, listed: string): boolean {
  return domain === listed || domain.endsWith(`.${listed}`);
}

export function emailDomainAllowed(address: string, rules: EmailDomainRules): boolean {
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  if (rules.deny.some((d) => matches(domain, d))) return false;
  return rules.allow.length === 0 || rules.allow.some((d) => matches(domain, d));
}

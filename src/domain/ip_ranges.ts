// Addresses and networks in CIDR form, as IP blocks store them: parsed, reduced to their network
// address (`192.0.2.7/24` is `192.0.2.0/24`, as Mastodon's inet column keeps it) and matched.
import { isIPv4, isIPv6 } from "node:net";

export interface Network {
  version: 4 | 6;
  /** The network address as a number of 32 or 128 bits. */
  base: bigint;
  prefix: number;
}

const bitsOf = (version: 4 | 6) => (version === 4 ? 32 : 128);

function v4ToBigint(ip: string): bigint {
  return ip.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigint(ip: string): bigint {
  let text = ip;
  // A trailing dotted quad (::ffff:192.0.2.1) is two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4ToBigint(quad[1]);
    text = `${text.slice(0, -quad[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** An address, with IPv4 addresses mapped into IPv6 (`::ffff:192.0.2.1`) read as IPv4. */
export function parseAddress(ip: string): { version: 4 | 6; value: bigint } | null {
  const bare = ip.replace(/%.*$/, "");
  if (isIPv4(bare)) return { version: 4, value: v4ToBigint(bare) };
  if (!isIPv6(bare)) return null;
  const value = v6ToBigint(bare);
  if (value >> 32n === 0xffffn) return { version: 4, value: value & 0xffffffffn };
  return { version: 6, value };
}

const mask = (version: 4 | 6, prefix: number) =>
  ((1n << BigInt(bitsOf(version))) - 1n) ^ ((1n << BigInt(bitsOf(version) - prefix)) - 1n);

/** `192.0.2.0/24`, `2001:db8::/32` or a lone address (its own network); null when not one. */
export function parseNetwork(text: string): Network | null {
  const [ip, prefixText, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const address = parseAddress(ip);
  if (!address) return null;
  const bits = bitsOf(address.version);
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) return null;
  return { version: address.version, base: address.value & mask(address.version, prefix), prefix };
}

function formatV6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(16 * (7 - i))) & 0xffffn).toString(16));
  // The longest run of two or more zero groups becomes "::".
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.start < 0) return groups.join(":");
  return `${groups.slice(0, best.start).join(":")}::${groups.slice(best.start + best.length).join(":")}`;
}

/** The network as IP blocks show it: `192.0.2.0/24`, `2001:db8::/32`. */
export function formatNetwork(n: Network): string {
  const address =
    n.version === 4 ? [24n, 16n, 8n, 0n].map((shift) => String((n.base >> shift) & 0xffn)).join(".") : formatV6(n.base);
  return `${address}/${n.prefix}`;
}

export function contains(n: Network, ip: { version: 4 | 6; value: bigint }): boolean {
  return n.version === ip.version && (ip.value & mask(n.version, n.prefix)) === n.base;
}

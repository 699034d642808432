// Which IP addresses Rookery may connect to when it fetches from outside: only globally reachable
// unicast ones. Everything special-purpose (IANA's registries) is refused, and IPv6 forms that carry
// an IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4 address they carry: ::ffff:127.0.0.1
// is loopback.
import { isIP } from "node:net";

/** An address as bytes: 4 for IPv4, 16 for IPv6. Null when the text is no IP address. */
export function addressBytes(text: string): Uint8Array | null {
  const address = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split(".").map(Number));
  if (family !== 6) return null;
  let ipv6 = address.toLowerCase();
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) becomes two hextets.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(ipv6);
  if (dotted) {
    const [a, b, c, d] = dotted[2].split(".").map(Number);
    ipv6 = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = ipv6.split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = Array(8 - headParts.length - tailParts.length).fill("0");
  const hextets = tail === undefined ? headParts : [...headParts, ...zeros, ...tailParts];
  const bytes = new Uint8Array(16);
  hextets.forEach((h, i) => {
    const value = Number.parseInt(h, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

type Range = readonly [prefix: Uint8Array, bits: number];

function range(cidr: string): Range {
  const [address, bits] = cidr.split("/");
  return [addressBytes(address)!, Number(bits)];
}

function inRange(bytes: Uint8Array, [prefix, bits]: Range): boolean {
  if (bytes.length !== prefix.length) return false;
  for (let i = 0; i < bits; i++) {
    const bit = 7 - (i % 8);
    if (((bytes[i >> 3] >> bit) & 1) !== ((prefix[i >> 3] >> bit) & 1)) return false;
  }
  return true;
}

/** IPv4 ranges that are not globally reachable unicast (RFC 6890 and its updates). */
const IPV4_REFUSED = [
  "0.0.0.0/8", // "this network", 0.0.0.0 reaches the local machine
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, cloud metadata services
  "172.16.0.0/12",
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation
  "192.88.99.0/24", // 6to4 relay anycast
  "192.168.0.0/16",
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation
  "203.0.113.0/24", // documentation
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, and the broadcast address
].map(range);

/** IPv6 global unicast; every other IPv6 range (loopback, unique local, link-local, multicast…) is refused. */
const IPV6_GLOBAL = range("2000::/3");

/** Parts of global unicast that are not globally reachable. */
const IPV6_REFUSED = [
  "2001::/23", // IETF protocol assignments, Teredo among them
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation
].map(range);

/** IPv6 forms that embed an IPv4 address, with the byte offset where it sits. */
const IPV6_EMBEDDING: readonly (readonly [Range, number])[] = [
  [range("::ffff:0:0/96"), 12], // IPv4-mapped
  [range("64:ff9b::/96"), 12], // NAT64
  [range("2002::/16"), 2], // 6to4
];

/** Whether an address is globally reachable unicast: the only kind Rookery fetches from by default. */
export function isPublicAddress(text: string): boolean {
  const bytes = addressBytes(text);
  if (!bytes) return false;
  if (bytes.length === 4) return !IPV4_REFUSED.some((r) => inRange(bytes, r));
  for (const [embedding, offset] of IPV6_EMBEDDING) {
    if (inRange(bytes, embedding)) return isPublicAddress(bytes.slice(offset, offset + 4).join("."));
  }
  return inRange(bytes, IPV6_GLOBAL) && !IPV6_REFUSED.some((r) => inRange(bytes, r));
}

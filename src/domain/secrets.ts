// Random secrets and their stored form. Only hashes of tokens and secrets reach the database, or,
// for the few Rookery must give back, their encrypted form.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from "node:crypto";

/** 256 random bits as base64url (43 characters): access tokens, client secrets, codes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** A lookup hash for a high-entropy secret (tokens, codes): SHA-256 is enough, and indexable. */
export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

// scrypt with N=2^15, r=8, p=1: about 50 ms here, the OWASP recommendation for scrypt.
const N = 2 ** 15;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptWith(password, salt, N);
  return `scrypt$${N}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !n || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  const actual = await scryptWith(password, Buffer.from(salt, "base64"), Number(n));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function scryptWith(password: string, salt: Buffer, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 64, { N: n, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * Encrypts a secret Rookery must hand back later (a push subscription's access token): AES-256-GCM
 * under a key derived from SECRET_KEY_BASE for one purpose, so the database alone does not give it away.
 */
export function sealSecret(value: string, keyBase: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(keyBase, purpose), iv);
  const sealed = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((b) => b.toString("base64url")).join(".");
}

export function openSecret(sealed: string, keyBase: string, purpose: string): string {
  const [iv, tag, data] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", sealingKey(keyBase, purpose), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
}

function sealingKey(keyBase: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", keyBase, "rookery", purpose, 32));
}

// Random secrets and their stored form. Only hashes of tokens and secrets reach the database.
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

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

// Object integrity proofs (FEP-8b32, cryptosuite eddsa-jcs-2022) on the activities we send. Fedify's
// signObject signs its own serialization of a vocabulary object, which has no room for the terms
// its vocabulary lacks (Mastodon's blurhash and focalPoint on attachments); a proof must cover the
// exact JSON that travels, so it is made here over that JSON, as the cryptosuite defines it: the
// SHA-256 of the canonical (RFC 8785) proof options, then of the document, signed with Ed25519.
// Fedify's verifyObject checks these proofs (test/federation_proofs.test.ts).
import { encodeMultibase } from "@fedify/fedify";
import canonicalizeModule from "canonicalize";
import { instant } from "./temporal.ts";

// The package is a CommonJS function whose typings declare it as an ES module's default export.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

type JsonObject = Record<string, unknown>;

/** The context that defines `proof` and DataIntegrityProof's terms. */
const DATA_INTEGRITY = "https://w3id.org/security/data-integrity/v1";

function withDataIntegrityContext(context: unknown): unknown[] {
  const list = Array.isArray(context) ? context : context === undefined ? [] : [context];
  return list.includes(DATA_INTEGRITY) ? list : [...list, DATA_INTEGRITY];
}

async function sha256(value: unknown): Promise<Uint8Array> {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("nothing to sign");
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/**
 * `document` with a proof by `privateKey` (Ed25519), whose public key is the Multikey `keyId`.
 * `created` dates the proof: the same document, key and date make the same proof.
 */
export async function withProof(
  document: JsonObject,
  privateKey: CryptoKey,
  keyId: URL,
  created: Date,
): Promise<JsonObject> {
  const options = {
    type: "DataIntegrityProof",
    cryptosuite: "eddsa-jcs-2022",
    verificationMethod: keyId.href,
    proofPurpose: "assertionMethod",
    // Written as a verifier reads it back (Temporal's form, which drops a zero fraction).
    created: instant(created).toString(),
  };
  const { proof: _, "@context": context, ...rest } = document;
  const unsigned = { "@context": withDataIntegrityContext(context), ...rest };
  const [optionsHash, documentHash] = await Promise.all([
    sha256({ "@context": unsigned["@context"], ...options }),
    sha256(unsigned),
  ]);
  const signature = await crypto.subtle.sign("Ed25519", privateKey, new Uint8Array([...optionsHash, ...documentHash]));
  const proofValue = new TextDecoder().decode(encodeMultibase("base58btc", new Uint8Array(signature)));
  return { ...unsigned, proof: { ...options, proofValue } };
}

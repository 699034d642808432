// Everything the rest of Rookery calls in federation, in one module that src/federation/load.ts
// loads on first use: Fedify and what it brings (JSON-LD, the vocabulary, OpenTelemetry, the
// Temporal polyfill) are not loaded by a thread that has not federated yet.
import { verifyRequest } from "@fedify/fedify";
import type { CryptographicKey } from "@fedify/fedify/vocab";
import type { Config } from "../config.ts";
import { documentLoaderFactory } from "./document_loader.ts";

export { archiveActor, archiveCreates } from "./archive.ts";
export { federationOf } from "./federation.ts";
export { deliver, distribute, fetchReplies, runFedifyMessage, syncFeatured } from "./jobs.ts";
export { remoteResolver } from "./resolve.ts";

/** The key that signed `request` (either signature form); null when it is unsigned or does not verify. */
export async function signingKey(config: Config, request: Request): Promise<CryptographicKey | null> {
  const loader = documentLoaderFactory(config)({});
  return verifyRequest(request, {
    documentLoader: loader,
    contextLoader: loader,
    spec: request.headers.get("signature-input") ? "rfc9421" : "draft-cavage-http-signatures-12",
  }).catch(() => null);
}

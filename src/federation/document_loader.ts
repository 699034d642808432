// How Fedify reads remote documents (actors, objects, keys, JSON-LD contexts): through src/net, so
// that every fetch refuses private addresses after DNS resolution (unless ALLOW_PRIVATE_ADDRESSES),
// has a deadline and a size cap, and names Rookery in its User-Agent. The signed variant signs the
// GET with a local actor's key, for servers that require signed fetches.
import {
  type AuthenticatedDocumentLoaderFactory,
  type DocumentLoader,
  type DocumentLoaderFactory,
  preloadedContexts,
  type RemoteDocument,
  signRequest,
} from "@fedify/fedify";
import type { Config } from "../config.ts";
import { jsonExcess } from "../domain/json_shape.ts";
import { outgoing } from "../net/outgoing.ts";

const ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
/** Mastodon's cap on an inbound ActivityPub document. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/**
 * How deep an ActivityPub document may nest, fetched or delivered: real ones nest fewer than ten
 * levels, and JSON-LD expansion recurses at every level (a thousand overflowed its stack).
 */
export const MAX_DOCUMENT_DEPTH = 32;
const TIMEOUT_MS = 10_000;

type Sign = (request: Request) => Promise<Request>;

const ACTIVITY_STREAMS = "https://www.w3.org/ns/activitystreams";
/**
 * The ActivityStreams context, with the terms of Mastodon's extension that Mastodon reads by name
 * whatever the context says. snac2 writes `Hashtag` and `sensitive` under the plain ActivityStreams
 * context, which defines neither, so a JSON-LD reader would drop its hashtags and content warnings;
 * a document's own later definitions still win over these.
 */
const activityStreams = {
  contextUrl: null,
  documentUrl: ACTIVITY_STREAMS,
  // See contextLoaderFactory.
  tag: "static",
  document: {
    "@context": {
      ...(preloadedContexts[ACTIVITY_STREAMS] as { "@context": Record<string, unknown> })["@context"],
      Hashtag: "as:Hashtag",
      sensitive: "as:sensitive",
      manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
      movedTo: { "@id": "as:movedTo", "@type": "@id" },
    },
  },
} as RemoteDocument;

function loader(config: Config, sign?: Sign): DocumentLoader {
  const fetch = outgoing(config);
  return async (url) => {
    if (url === ACTIVITY_STREAMS) return activityStreams;
    if (url in preloadedContexts) {
      return { contextUrl: null, documentUrl: url, document: preloadedContexts[url], tag: "static" } as RemoteDocument;
    }
    let headers: Record<string, string> = { accept: ACCEPT };
    if (sign) {
      const signed = await sign(new Request(url, { headers }));
      headers = Object.fromEntries(signed.headers);
    }
    const response = await fetch(url, { headers, timeoutMs: TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES });
    if (response.status < 200 || response.status > 299) {
      throw new Error(`${url} answered HTTP ${response.status}`);
    }
    const text = response.body.toString("utf8");
    if (jsonExcess(text, MAX_DOCUMENT_DEPTH, Number.POSITIVE_INFINITY)) {
      throw new Error(`${url} answered a document nested deeper than ${MAX_DOCUMENT_DEPTH} levels`);
    }
    return { contextUrl: null, documentUrl: response.url, document: JSON.parse(text) };
  };
}

export function documentLoaderFactory(config: Config): DocumentLoaderFactory {
  const plain = loader(config);
  return () => plain;
}

/** JSON-LD contexts fetched by this process, by URL: they do not change. */
const contexts = new Map<string, RemoteDocument>();
const MAX_CONTEXTS = 200;

/**
 * Contexts: the ones Fedify carries, else fetched once. A context that cannot be had (Pleroma's
 * `litepub-0.1.jsonld` from a server that is down) counts as empty, as Mastodon, which reads
 * activities as plain JSON, would not notice it: the ActivityStreams terms still resolve.
 *
 * Contexts that do not change are tagged `static`: jsonld then keeps them processed between
 * documents instead of processing the ActivityStreams context again for every activity it reads
 * (a quarter of the CPU time of parsing one). jsonld keeps them by URL for the whole process, so
 * Fedify's own readers see the ActivityStreams context above too. An empty stand-in is not
 * tagged, so it is tried again.
 */
export function contextLoaderFactory(config: Config): DocumentLoaderFactory {
  const plain = loader(config);
  const load: DocumentLoader = async (url) => {
    const known = contexts.get(url);
    if (known) return known;
    let document: RemoteDocument;
    try {
      document = { ...(await plain(url)), tag: "static" } as RemoteDocument;
    } catch {
      return { contextUrl: null, documentUrl: url, document: { "@context": {} } };
    }
    if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value as string);
    contexts.set(url, document);
    return document;
  };
  return () => load;
}

export function authenticatedDocumentLoaderFactory(config: Config): AuthenticatedDocumentLoaderFactory {
  return (identity) => loader(config, (request) => signRequest(request, identity.privateKey, identity.keyId));
}

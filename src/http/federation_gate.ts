// Who may talk to this server's ActivityPub endpoints, decided before Fedify answers: a server
// refused by policy (a suspended domain, or in limited federation mode one not allowed) gets a 403
// for whatever it delivers; and in secure mode (AUTHORIZED_FETCH) or limited federation mode,
// reading an actor, object or collection needs a request signed by a server that is not refused
// (401 unsigned or unverifiable, 403 refused), as on Mastodon. The instance actor stays readable
// unsigned: other servers fetch its key to check the signed fetches this server makes.
import type { MiddlewareHandler } from "hono";
import { signingKey } from "../federation/load.ts";
import { domainPolicy, refusesAny } from "../services/moderation/federation_policy.ts";
import type { AppEnv, Ctx } from "./hono.ts";

const INBOX = /^\/(?:users\/[^/]+\/)?inbox\/?$/;
const READABLE = /^\/(?:users\/|@)/;
const INSTANCE_ACTOR = /^\/users\/instance\.actor\/?$/;
const ACTIVITY_STREAMS = /application\/(?:activity\+json|ld\+json)/;
/** Deliveries are read whole by Fedify anyway; this only bounds what is parsed here. */
const MAX_PEEK_BYTES = 1024 * 1024;

/** The host of the key a request's signature names (either form), if it names one. */
function signerHost(c: Ctx): string | null {
  const header = `${c.req.header("signature-input") ?? ""} ${c.req.header("signature") ?? ""}`;
  const keyId = /keyId="([^"]+)"/i.exec(header)?.[1];
  if (!keyId) return null;
  try {
    return new URL(keyId).host;
  } catch {
    return null;
  }
}

/** The host of the delivered activity's actor. */
async function actorHost(c: Ctx): Promise<string | null> {
  const length = Number(c.req.header("content-length") ?? 0);
  if (length > MAX_PEEK_BYTES) return null;
  try {
    const body = (await c.req.raw.clone().json()) as { actor?: unknown };
    const actor = typeof body.actor === "string" ? body.actor : (body.actor as { id?: unknown } | undefined)?.id;
    return typeof actor === "string" ? new URL(actor).host : null;
  } catch {
    return null;
  }
}

async function refused(c: Ctx, host: string | null): Promise<boolean> {
  return host !== null && (await domainPolicy(c.get("rt"), host)).refused;
}

const refusal = (c: Ctx) => c.json({ error: "This server does not federate with yours" }, 403);

export const federationGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path;
  const method = c.req.method;
  if (method === "POST" && INBOX.test(path)) {
    if (!(await refusesAny(c.get("rt")))) return next();
    if ((await refused(c, signerHost(c))) || (await refused(c, await actorHost(c)))) return refusal(c);
    return next();
  }
  const config = c.get("rt").config;
  const read = (method === "GET" || method === "HEAD") && READABLE.test(path) && !INSTANCE_ACTOR.test(path);
  if (!read || !ACTIVITY_STREAMS.test(c.req.header("accept") ?? "")) return next();
  if (!config.authorizedFetch && !config.limitedFederation) return next();
  const key = signerHost(c) ? await signingKey(config, c.req.raw.clone()) : null;
  if (!key) return c.json({ error: "Request not signed" }, 401);
  if (await refused(c, key.id?.host ?? signerHost(c))) return refusal(c);
  return next();
};

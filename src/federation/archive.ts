// The ActivityPub documents of an account's archive, from the serializers that serve them to other
// servers: the actor, and the Create of each status as the outbox has it. The archive job
// (src/services/portability/archive.ts) asks for them through load.ts.
import type { Runtime } from "../runtime.ts";
import { localActor } from "./actor.ts";
import { federationOf } from "./federation.ts";
import { localAccountByUsername } from "./local_rows.ts";
import { loadNoteParts, servedCreate } from "./note.ts";

type Json = Record<string, unknown>;

const contextOf = (rt: Runtime) => federationOf(rt).createContext(new URL(rt.config.origin), rt);

/** The actor document of a local account, as served at its id; null for an account not served. */
export async function archiveActor(rt: Runtime, username: string): Promise<Json | null> {
  const ctx = contextOf(rt);
  const row = await localAccountByUsername(rt, username);
  if (!row) return null;
  return (await (
    await localActor(rt, ctx, row)
  ).toJsonLd({ format: "compact", contextLoader: ctx.contextLoader })) as Json;
}

/** The Create of each status in `ids`, in their order (statuses gone since are left out). */
export async function archiveCreates(rt: Runtime, ids: string[]): Promise<Json[]> {
  const ctx = contextOf(rt);
  const out: Json[] = [];
  for (const id of ids) {
    const parts = await loadNoteParts(rt, id);
    if (!parts) continue;
    const create = await servedCreate(rt, parts, ctx.contextLoader);
    out.push((await create.toJsonLd({ format: "compact", contextLoader: ctx.contextLoader })) as Json);
  }
  return out;
}

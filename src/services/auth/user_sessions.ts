// A user's own web sessions: the list on the settings page, and ending them (one, or all but the
// one in use after a password change, or all after a reset).
import type { Db } from "../../db/index.ts";
import type { Runtime } from "../../runtime.ts";
import { SESSION_DAYS } from "./sessions.ts";

export async function listSessions(rt: Runtime, userId: string) {
  return rt.db
    .selectFrom("web_sessions")
    .select(["id", "ip", "user_agent", "created_at", "last_seen_at"])
    .where("user_id", "=", userId)
    .where("created_at", ">", new Date(Date.now() - SESSION_DAYS * 86_400_000))
    .orderBy("last_seen_at", "desc")
    .execute();
}

/** Ends one of the user's sessions; false when it is not theirs (or gone already). */
export async function endSessionById(rt: Runtime, userId: string, sessionId: string): Promise<boolean> {
  const ended = await rt.db
    .deleteFrom("web_sessions")
    .where("id", "=", sessionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(ended.numDeletedRows) > 0;
}

/** Ends every session of the user but `keepId`'s, in the caller's transaction. */
export async function endOtherSessions(db: Db, userId: string, keepId: string | null): Promise<void> {
  let q = db.deleteFrom("web_sessions").where("user_id", "=", userId);
  if (keepId) q = q.where("id", "!=", keepId);
  await q.execute();
}

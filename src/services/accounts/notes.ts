// Private notes: what someone wrote down about an account, shown only to them (Relationship.note).
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { requireAccount } from "../relationships/targets.ts";

/** Mastodon's AccountNote::COMMENT_SIZE_LIMIT, in characters. */
const NOTE_MAX_CHARS = 2000;

/** Sets the note on `targetId`; a blank comment removes it. */
export async function setAccountNote(
  rt: Runtime,
  accountId: string,
  targetId: string,
  comment: string | undefined,
): Promise<void> {
  await requireAccount(rt.db, targetId);
  if (comment === undefined || comment.trim() === "") {
    await rt.db
      .deleteFrom("account_notes")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", targetId)
      .execute();
    return;
  }
  if ([...comment].length > NOTE_MAX_CHARS) {
    throw unprocessable(`Validation failed: Comment is too long (maximum is ${NOTE_MAX_CHARS} characters)`);
  }
  const now = new Date();
  await rt.db
    .insertInto("account_notes")
    .values({
      id: newId(),
      account_id: accountId,
      target_account_id: targetId,
      comment,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doUpdateSet({ comment, updated_at: now }))
    .execute();
}

// The Conversation entity: the other participants (or the viewer alone, writing to themself), the
// latest status and the unread flag.
import type { Runtime } from "../runtime.ts";
import type { ConversationRow } from "../services/statuses/conversations.ts";
import { renderAccounts } from "./account.ts";
import { renderStatuses } from "./status.ts";

export async function renderConversations(rt: Runtime, viewerId: string, rows: ConversationRow[]) {
  const participants = rows.map((r) => (r.participants ? r.participants.split(" ") : [viewerId]));
  const [accounts, statuses] = await Promise.all([
    renderAccounts(rt, [...new Set(participants.flat())]),
    renderStatuses(
      rt,
      rows.map((r) => r.last_status_id),
      { viewerId },
    ),
  ]);
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const statusById = new Map(statuses.map((s) => [s.id, s]));
  return rows.map((row, i) => ({
    id: row.id,
    unread: row.unread,
    accounts: participants[i].flatMap((id) => accountById.get(id) ?? []),
    last_status: statusById.get(row.last_status_id) ?? null,
  }));
}

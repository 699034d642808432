// The Conversation entity: the other participants (or the viewer alone, writing to themself), the
// latest status and the unread flag.
import type { Runtime } from "../runtime.ts";
import type { ConversationRow, ConversationViews } from "../services/statuses/conversations.ts";
import { renderAccountView } from "./account.ts";
import { renderStatus } from "./status.ts";

export function renderConversations(rt: Runtime, rows: ConversationRow[], views: ConversationViews) {
  return rows.map((row, i) => {
    const status = views.statuses.get(row.last_status_id);
    return {
      id: row.id,
      unread: row.unread,
      accounts: views.participants[i].flatMap((id) => {
        const account = views.accounts.get(id);
        return account ? [renderAccountView(rt, account)] : [];
      }),
      last_status: status ? renderStatus(rt, status) : null,
    };
  });
}

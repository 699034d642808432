// A week of daily use, today first, as Mastodon's trends report it (TagHistory, link history):
// per day the statuses and the distinct accounts that posted them, as strings.
import { idFloor, idTime } from "../../domain/ids.ts";

const DAY = 86_400_000;

export interface HistoryDay {
  day: string;
  uses: string;
  accounts: string;
}

/** The id below which statuses are too old for the week's history. */
export function historyFloor(): string {
  const today = Math.floor(Date.now() / DAY) * DAY;
  return idFloor(new Date(today - 6 * DAY));
}

/** The week of each key, from the statuses (`id`, `account_id`) used under it. */
export function weekHistory(
  keys: string[],
  rows: { key: string; id: string; account_id: string }[],
): Map<string, HistoryDay[]> {
  const today = Math.floor(Date.now() / DAY) * DAY;
  const out = new Map<string, HistoryDay[]>();
  for (const key of keys) {
    const days = Array.from({ length: 7 }, (_, i) => ({ day: today - i * DAY, uses: 0, accounts: new Set<string>() }));
    for (const r of rows) {
      if (r.key !== key) continue;
      const day = days[Math.floor((today - Math.floor(idTime(r.id).getTime() / DAY) * DAY) / DAY)];
      if (!day) continue;
      day.uses++;
      day.accounts.add(r.account_id);
    }
    out.set(
      key,
      days.map((d) => ({ day: String(d.day / 1000), uses: String(d.uses), accounts: String(d.accounts.size) })),
    );
  }
  return out;
}

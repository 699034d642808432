// The Poll entity.
import type { PollView } from "../services/statuses/polls.ts";

export function renderPoll({ poll: p, viewer }: PollView, now = new Date()) {
  const expired = p.expires_at <= now;
  // Hidden totals show to nobody, the author included, until the poll has ended (as in Mastodon).
  const showTotals = !p.hide_totals || expired;
  return {
    id: p.id,
    expires_at: p.expires_at.toISOString(),
    expired,
    multiple: p.multiple,
    votes_count: p.votes_count,
    voters_count: p.voters_count,
    options: p.options.map((title, i) => ({ title, votes_count: showTotals ? (p.tallies[i] ?? 0) : null })),
    emojis: [],
    ...(viewer ? { voted: viewer.votes.length > 0 || viewer.id === p.account_id, own_votes: viewer.votes } : {}),
  };
}

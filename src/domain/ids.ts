// Mastodon-style snowflake ids: milliseconds since the epoch shifted left 16 bits, plus 16 low bits.
// The low bits are a 6-bit tag and a 10-bit sequence, so ids from one thread strictly increase.
// The threads of a process take consecutive tags from one random base (web threads inherit it
// through the environment), so that no two of them can make the same id. Processes draw their
// bases apart: two of 64, so of six processes (web and workers scaled out) two share a tag about
// one time in five. The sequence starts at a random place in each millisecond, so that two
// processes of one tag making ids in the same millisecond still rarely meet (a unique constraint
// catches the rest); from 0, every first id of a millisecond was the other's too. Ids are strings
// everywhere outside the database.
import { threadId } from "node:worker_threads";

const SEQUENCE_BITS = 10n;
const SEQUENCE_MAX = (1 << 10) - 1;
/** Where a millisecond's sequence may start: below this, leaving it room for at least as many ids. */
const SEQUENCE_STARTS = 1 << 9;
const TAGS = 64;
const BASE_VARIABLE = "ROOKERY_ID_TAG_BASE";
process.env[BASE_VARIABLE] ??= String(Math.floor(Math.random() * TAGS));
const processTag = BigInt((Number(process.env[BASE_VARIABLE]) + threadId) % TAGS) << SEQUENCE_BITS;

let lastMs = 0;
let sequence = 0;

/** A new id, strictly greater than every id this thread made before. */
export function newId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    ms = lastMs;
    if (sequence === SEQUENCE_MAX) {
      // The sequence is spent for this millisecond: borrow the next one.
      ms += 1;
      sequence = 0;
    } else {
      sequence += 1;
    }
  } else {
    sequence = Math.floor(Math.random() * SEQUENCE_STARTS);
  }
  lastMs = ms;
  return ((BigInt(ms) << 16n) | processTag | BigInt(sequence)).toString();
}

/** An id for a moment in the past (remote posts keep their publication time). Not sequenced. */
export function idAt(date: Date): string {
  const low = BigInt(Math.floor(Math.random() * 0x10000));
  return ((BigInt(date.getTime()) << 16n) | low).toString();
}

/** The smallest id of a millisecond: `id > idFloor(t)` selects rows made at or after t. */
export function idFloor(date: Date): string {
  return (BigInt(date.getTime()) << 16n).toString();
}

/** When an id was made. */
export function idTime(id: string): Date {
  return new Date(Number(BigInt(id) >> 16n));
}

/** Whether a value looks like one of our ids (a positive decimal integer of at most 19 digits). */
export function isId(value: unknown): value is string {
  return typeof value === "string" && /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) < 2n ** 63n;
}

// Mastodon-style snowflake ids: milliseconds since the epoch shifted left 16 bits, plus 16 low bits.
// The low bits are a 6-bit tag and a 10-bit sequence, so ids from one thread strictly increase.
// Two threads making ids in the same millisecond must differ in tag, or they can make the same id
// (a unique violation: a 500, or a job lost). Separately started processes (`rookery web` ×N,
// `rookery worker` ×M) cannot see each other's tags, so each claims a block of consecutive tags
// from the database as it starts, before it makes any id (src/db/id_tags.ts): one tag for each of
// its threads, the first for the thread that claimed, the others for the web threads by their
// place (src/web_threads.ts). Blocks are handed out in turn, so no two processes share a tag until
// 64 more tags have been handed out (up to 64 processes of one thread, 16 of four). Before a claim
// (`db migrate`, and threads other than web threads) the block starts at random and a thread
// takes the place of its thread id. The sequence starts at a random place in each millisecond,
// so that two makers of one tag (a block handed out again while its first process still runs)
// still rarely meet; from 0, every first id of a millisecond was the other's too. Ids are strings
// everywhere outside the database.
import { threadId } from "node:worker_threads";

const SEQUENCE_BITS = 10n;
const SEQUENCE_MAX = (1 << 10) - 1;
/** Where a millisecond's sequence may start: below this, leaving it room for at least as many ids. */
const SEQUENCE_STARTS = 1 << 9;
export const ID_TAGS = 64;
/** The block's first tag, which the threads of a process inherit through the environment. */
const BASE_VARIABLE = "ROOKERY_ID_TAG_BASE";
process.env[BASE_VARIABLE] ??= String(Math.floor(Math.random() * ID_TAGS));
let tag = 0;
let tagBits = 0n;
useIdTagPlace(threadId);

/** This thread's tag (0–63). */
export function idTag(): number {
  return tag;
}

/** This process's block starts at `base` (claimed from the database); this thread takes its first tag. */
export function useIdTagBase(base: number): void {
  process.env[BASE_VARIABLE] = String(base);
  useIdTagPlace(0);
}

/** This thread takes the tag at `place` in its process's block (a web thread: its place among the threads). */
export function useIdTagPlace(place: number): void {
  tag = (Number(process.env[BASE_VARIABLE]) + place) % ID_TAGS;
  tagBits = BigInt(tag) << SEQUENCE_BITS;
}

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
  return ((BigInt(ms) << 16n) | tagBits | BigInt(sequence)).toString();
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

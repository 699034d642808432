// How many images the process works on at once: as many as it has cores, counted across all its
// threads in shared memory. Uploads reach the web threads unevenly (the kernel spreads connections
// among them), and with slots of its own per thread, one thread's queue would wait while another
// thread's core sat idle: ten uploads split 7 to 3 would take 7 images' time instead of 5.
import { availableParallelism } from "node:os";

/** What a thread shares with the main thread: the process's free slots, and how many this thread holds. */
export interface ImageSlots {
  free: SharedArrayBuffer;
  held: SharedArrayBuffer;
}

let free: Int32Array | null = null;
let held: Int32Array | null = null;

function processFree(): Int32Array {
  if (!free) {
    free = new Int32Array(new SharedArrayBuffer(4));
    free[0] = availableParallelism();
  }
  return free;
}

/** Main thread: the slots a new web thread is to use (given back by `releaseImageSlots` when it ends). */
export function imageSlotsFor(): ImageSlots {
  return { free: processFree().buffer as SharedArrayBuffer, held: new SharedArrayBuffer(4) };
}

/** Main thread: gives back the slots an ended thread held (it may have died in the middle of an image). */
export function releaseImageSlots(slots: ImageSlots): void {
  const count = Atomics.exchange(new Int32Array(slots.held), 0, 0);
  if (count === 0) return;
  Atomics.add(processFree(), 0, count);
  Atomics.notify(processFree(), 0, count);
}

/** Web thread: takes the process's slots, handed over at its start. */
export function useImageSlots(slots: ImageSlots): void {
  free = new Int32Array(slots.free);
  held = new Int32Array(slots.held);
}

/** Runs `work` once one of the process's image slots is free. */
export async function withImageSlot<T>(work: () => Promise<T>): Promise<T> {
  const slots = processFree();
  for (;;) {
    const available = Atomics.load(slots, 0);
    if (available > 0) {
      if (Atomics.compareExchange(slots, 0, available, available - 1) === available) break;
      continue;
    }
    // Sleeps (without blocking the thread) until a slot is given back, unless one was meanwhile.
    const wait = Atomics.waitAsync(slots, 0, available);
    if (wait.async) await wait.value;
  }
  return inSlot(slots, work);
}

/** Runs `work` in one of the process's image slots if one is free now; null, without running it, if none is. */
export function withFreeImageSlot<T>(work: () => Promise<T>): Promise<T> | null {
  const slots = processFree();
  for (;;) {
    const available = Atomics.load(slots, 0);
    if (available <= 0) return null;
    if (Atomics.compareExchange(slots, 0, available, available - 1) === available) return inSlot(slots, work);
  }
}

/** Runs `work` in the slot just taken, and gives it back. */
async function inSlot<T>(slots: Int32Array, work: () => Promise<T>): Promise<T> {
  if (held) Atomics.add(held, 0, 1);
  try {
    return await work();
  } finally {
    if (held) Atomics.sub(held, 0, 1);
    Atomics.add(slots, 0, 1);
    Atomics.notify(slots, 0, 1);
  }
}

// How far a JSON text nests and how many values it holds, counted in one pass over the text before
// it is parsed: neither JSON.parse nor what reads its result (JSON-LD expansion recurses at every
// level) is then handed more than its caller allows.

/** Which bound a JSON text passes first: its nesting, or its number of values. */
export type JsonExcess = "depth" | "values";

/** The bound `text` passes first, or null; containers and the items after a comma count as values. */
export function jsonExcess(text: string, maxDepth: number, maxValues: number): JsonExcess | null {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      i = stringEnd(text, i);
    } else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > maxDepth) return "depth";
      if (++values > maxValues) return "values";
    } else if (ch === 0x7d || ch === 0x5d) {
      depth--;
    } else if (ch === 0x2c) {
      if (++values > maxValues) return "values";
    }
  }
  return null;
}

/** The index of the quote closing the JSON string opened at `start` (one not escaped by a backslash). */
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length; // unterminated: JSON.parse refuses it
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

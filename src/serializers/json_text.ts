// Entities written as JSON from kept templates. What a status or an account shows that changes only
// with the status or account itself is stringified once into a template with holes; a page is then
// written by joining the template's pieces with its holes filled (counters, the viewer's part,
// nested entities). Rendering a 20-status page as objects and stringifying it took about twice the
// CPU, on every timeline request.
import { randomBytes } from "node:crypto";

/**
 * An id as a JSON number, where Mastodon sends one and apps decode an integer: our ids exceed
 * 2^53, so the number is written out digit for digit rather than through a double.
 */
export const exactInteger = (id: string): unknown => JSON.rawJSON(id);

declare global {
  interface JSON {
    /** Node 21+: a value JSON.stringify writes out as the given text. */
    rawJSON(text: string): unknown;
  }
}

/** A hole's marker: random per process, so that no text a user writes can pass for one. */
const MARK = `\u0000${randomBytes(8).toString("hex")}\u0000`;
/** How a hole's marker starts in the JSON text (its opening quote, the marker escaped). */
const MARK_JSON = JSON.stringify(MARK).slice(0, -1);

/**
 * Where JSON is written: as one text, encoded once at the end. (Writing each piece into a buffer
 * costs a call into Node's native code per piece, which took more than the copying saved.)
 */
export class JsonOut {
  #text = "";

  /** JSON text, as it is. */
  text(s: string): void {
    this.#text += s;
  }

  /** A value's JSON. */
  value(v: unknown): void {
    if (v === null) this.#text += "null";
    else if (typeof v === "number" && Number.isFinite(v)) this.#text += v;
    else if (Array.isArray(v) && v.length === 0) this.#text += "[]";
    else if (v instanceof Writer) v.write(this);
    else this.#text += JSON.stringify(v) ?? "null";
  }

  /**
   * A value's JSON, where plain objects and arrays may hold Writers: for the few small objects that
   * wrap entities written from templates (a notification around its status and account).
   */
  compose(v: unknown): void {
    if (Array.isArray(v)) {
      this.#text += "[";
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.#text += ",";
        this.compose(v[i]);
      }
      this.#text += "]";
    } else if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      let separator = "{";
      for (const [key, item] of Object.entries(v)) {
        if (item === undefined) continue;
        this.#text += `${separator}${JSON.stringify(key)}:`;
        separator = ",";
        this.compose(item);
      }
      this.#text += separator === "{" ? "{}" : "}";
    } else {
      this.value(v);
    }
  }

  /** What was written. */
  toString(): string {
    return this.#text;
  }
}

/** JSON written by `write`. */
export function jsonText(write: (out: JsonOut) => void): string {
  const out = new JsonOut();
  write(out);
  return out.toString();
}

/**
 * JSON written by `write`, as bytes for an answer: as text, Node's HTTP response would copy it once
 * more, to join its headers.
 */
export const jsonBytes = (write: (out: JsonOut) => void): Buffer<ArrayBuffer> => Buffer.from(jsonText(write));

/** A value that writes its own JSON: a nested entity (`view`) filled from its own template by `write`. */
export class Writer<R = unknown, V = unknown> {
  readonly #write: (rt: R, out: JsonOut, view: V) => void;
  readonly #rt: R;
  readonly #view: V;
  constructor(write: (rt: R, out: JsonOut, view: V) => void, rt: R, view: V) {
    this.#write = write;
    this.#rt = rt;
    this.#view = view;
  }

  write(out: JsonOut): void {
    this.#write(this.#rt, out, this.#view);
  }
}

/** The JSON of an entity, cut at its holes, with the name of the value each hole takes. */
export interface Template {
  /** One more than the holes; the last one without the object's closing brace. */
  pieces: string[];
  keys: string[];
}

/** A hole for each of `keys`, to put where the values go when the template is made. */
export function holes<K extends string>(keys: readonly K[]): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, `${MARK}${key}`])) as Record<K, string>;
}

/** The template of `entity`, an object in which some values are holes(). */
export function makeTemplate(entity: object): Template {
  const text = JSON.stringify(entity);
  const pieces: string[] = [];
  const keys: string[] = [];
  let from = 0;
  for (let at = text.indexOf(MARK_JSON); at !== -1; at = text.indexOf(MARK_JSON, from)) {
    pieces.push(text.slice(from, at));
    const end = text.indexOf('"', at + MARK_JSON.length);
    keys.push(text.slice(at + MARK_JSON.length, end));
    from = end + 1;
  }
  pieces.push(text.slice(from, -1));
  return { pieces, keys };
}

/**
 * Writes `t` with its holes filled from `values`, and `more` (further members, with a leading comma)
 * before the closing brace.
 */
export function fill(out: JsonOut, t: Template, values: Record<string, unknown>, more = "") {
  const { pieces, keys } = t;
  out.text(pieces[0]);
  for (let i = 0; i < keys.length; i++) {
    out.value(values[keys[i]]);
    out.text(pieces[i + 1]);
  }
  out.text(`${more}}`);
}

/** Writes an array of entities, each written by `write`. */
export function writeArray<T>(out: JsonOut, items: readonly T[], write: (out: JsonOut, item: T) => void): void {
  out.text("[");
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out.text(",");
    write(out, items[i]);
  }
  out.text("]");
}

// Fedify reads JSON-LD by expanding it at every level of a class's hierarchy: Activity.fromJsonLd
// expands a document to learn its type, Create.fromJsonLd expands the same document again, and
// each superclass (Activity, then Object) and each embedded object's class expands the terms it is
// handed, which are expanded already. Reading a Create(Note) took seven expansions, about 0.3 ms and
// nearly all of the reading, and the inbox reads every activity twice (to accept it, and in its
// job). Expansion depends only on the document and the context loader, and expanded terms expand
// to themselves, so here:
//  - a document expanded with a context loader is not expanded again with the same loader: later
//    readers get a copy of the first result;
//  - node objects that came out of an expansion expand to a copy of themselves.
// Readers get copies because Fedify changes what it is given: it deletes `@type` from the node
// objects an expansion hands it, once it has read it, and changes nothing deeper. So a reader's
// copy is new only at its top level, over the rest of the expansion, which all readers share and
// which is frozen, so that a change there would fail loudly rather than reach the next reader.
// jsonld keeps no such results, and Fedify has no hook for them: the `expand` of the jsonld
// that Fedify's modules share is wrapped here, for Fedify's own kind of call only (a context loader
// and `keepFreeFloatingNodes`, nothing else); every other call goes through untouched.
import jsonld from "@fedify/vocab-runtime/jsonld";

type Options = { documentLoader?: unknown; keepFreeFloatingNodes?: boolean } & Record<string, unknown>;
type Expand = (input: unknown, options?: Options) => Promise<unknown[]>;

const api = jsonld as unknown as { expand: Expand };
const expand: Expand = api.expand.bind(jsonld);

/** Node objects handed out from an expansion: expanding one again gives a copy of it. */
const expandedNodes = new WeakSet<object>();
/** Each document's expansions so far, by context loader (a document meets one or two of them). */
const expansions = new WeakMap<object, { loader: unknown; result: Promise<unknown[]> }[]>();

/** Whether `value` is a node object whose expansion is a copy of itself (not a value, list, set or graph). */
function isNode(value: Record<string, unknown>): boolean {
  return !("@value" in value || "@list" in value || "@set" in value || "@graph" in value);
}

/** Freezes an expansion and marks its node objects as expanded, once, before readers share it. */
function seal(value: unknown): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) for (const v of value) seal(v);
  else {
    for (const v of Object.values(value)) seal(v);
    if (isNode(value as Record<string, unknown>)) expandedNodes.add(value);
  }
  Object.freeze(value);
}

/** A reader's copy of an expanded object: its own top level, over the shared (sealed) rest. */
function copy(value: Record<string, unknown>): Record<string, unknown> {
  const out = { ...value };
  if (isNode(out)) expandedNodes.add(out);
  return out;
}

/** Whether a call is Fedify's kind: a context loader and `keepFreeFloatingNodes: true`, nothing else. */
function fedifysKind(options: Options | undefined): options is Options {
  if (options?.keepFreeFloatingNodes !== true) return false;
  for (const key in options) if (key !== "documentLoader" && key !== "keepFreeFloatingNodes") return false;
  return true;
}

/** The document's expansion with the loader of `options`, the first time it is asked for. */
function expansionOf(input: object, options: Options): Promise<unknown[]> {
  const known = expansions.get(input) ?? [];
  const found = known.find((e) => e.loader === options.documentLoader);
  if (found) return found.result;
  const entry = {
    loader: options.documentLoader,
    result: expand(input, options).then((result) => {
      seal(result);
      return result;
    }),
  };
  known.push(entry);
  expansions.set(input, known);
  // A loader that failed (a context out of reach) is asked again by the next reader.
  entry.result.catch(() => {
    const at = known.indexOf(entry);
    if (at >= 0) known.splice(at, 1);
  });
  return entry.result;
}

api.expand = async (input, options) => {
  if (!fedifysKind(options) || input === null || typeof input !== "object" || Array.isArray(input)) {
    return expand(input, options);
  }
  if (expandedNodes.has(input)) return [copy(input as Record<string, unknown>)];
  return (await expansionOf(input, options)).map((node) => copy(node as Record<string, unknown>));
};

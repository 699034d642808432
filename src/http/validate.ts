// Zod helpers for Mastodon's parameter conventions, and the one place that turns a validation
// failure into Mastodon's error: 400 for a missing parameter, 422 for a wrong one. Every helper
// reads only scalars: an array or object where a scalar belongs is a 422 naming the parameter,
// never coerced (which could walk a deeply nested value).
import { z } from "zod";
import { ApiError, notFound } from "../domain/errors.ts";
import { isId } from "../domain/ids.ts";
import { codePoints } from "../domain/lengths.ts";
import { MAX_STRING_LENGTH, type Params } from "./params.ts";

type Scalar = string | number | boolean;

const FALSE = new Set(["0", "f", "false", "off", "no", "n"]);

/** Rails' boolean cast: false for 0/f/false/off/no, true for anything else non-empty. */
export function truthy(value: Scalar | null | undefined): boolean | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  return !FALSE.has(value.trim().toLowerCase());
}

const isScalar = (v: unknown): v is Scalar => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/** Numbers and booleans read as their text, as Rails reads JSON scalars into string attributes. */
const asText = (v: unknown) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v);

const tooLong = (max: number) => `is too long (maximum is ${max} characters)`;

export const zBool = () => z.preprocess((v) => (isScalar(v) || v === null ? truthy(v) : v), z.boolean().optional());

/** A boolean that is false when not given. */
export const zFlag = () => zBool().transform((v) => v ?? false);

/** An integer from a string or number; empty strings count as absent. */
export const zInt = () =>
  z.preprocess(
    (v) => (v === "" || v === null ? undefined : typeof v === "string" ? Number(v.trim() || Number.NaN) : v),
    z.number().int().optional(),
  );

/**
 * A string of at most `max` characters; the empty string is kept (a blank value is the service's to
 * refuse). Without `max`, the service checks the length itself (under the edge's MAX_STRING_LENGTH).
 */
export const zString = (max = MAX_STRING_LENGTH) =>
  z.preprocess(
    (v) => (v === null ? undefined : asText(v)),
    z
      .string()
      .refine((s) => codePoints(s) <= max, tooLong(max))
      .optional(),
  );

/** An integer, or null when sent empty (`expires_in=` means "never"). */
export const zNullableInt = () => z.preprocess((v) => (v === "" ? null : v), z.union([z.null(), zInt()]).optional());

/** A string parameter of at most `max` characters where the empty string means "not given". */
export const zText = (max = MAX_STRING_LENGTH) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), zString(max));

const listOf = (v: unknown) => (v === undefined || v === null || v === "" ? undefined : Array.isArray(v) ? v : [v]);

/** `x[]=a&x[]=b`, a lone `x=a`, or a JSON array: always an array of strings of at most `max` characters. */
export const zStrings = (max = MAX_STRING_LENGTH) =>
  z.preprocess(
    (v) => listOf(v)?.map(asText),
    z.array(z.string().refine((s) => codePoints(s) <= max, tooLong(max))).optional(),
  );

/** An id to store (a marker's position): anything that is not one of our ids is a 422. */
export const zId = () => z.preprocess(asText, z.string().refine(isId, "is not a valid id"));

/**
 * An id naming a record to act on (`in_reply_to_id`, `status_id`): one that cannot exist (out of
 * the 64-bit range, negative, not a number) names no record, a 404 as Mastodon answers.
 */
export const zRef = () =>
  z.preprocess((v) => {
    if (v === undefined || v === null || v === "") return undefined;
    const id = asText(v);
    if (typeof id === "string" && !isId(id)) throw notFound();
    return id;
  }, z.string().optional());

/** A list of ids to look up (`id[]=…`): those that cannot exist are left out, as no record has them. */
export const zIds = () =>
  z.preprocess(
    (v) => listOf(v)?.map(asText),
    z
      .array(z.string())
      .optional()
      .transform((ids) => ids?.filter(isId)),
  );

/** A list of ids that must all name records (list members): one that cannot exist is a 404. */
export const zRefs = () =>
  z.preprocess((v) => {
    const ids = listOf(v)?.map(asText);
    if (ids?.some((id) => typeof id === "string" && !isId(id))) throw notFound();
    return ids;
  }, z.array(z.string()).optional());

export function parse<S extends z.ZodType>(schema: S, params: Params): z.output<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = issue.path.map(String).join(".");
  const given = issue.path.reduce<unknown>(
    (node, key) => (node && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key] : undefined),
    params,
  );
  if (given === undefined && issue.code === "invalid_type") {
    throw new ApiError(400, `param is missing or the value is empty: ${name}`);
  }
  throw new ApiError(422, `Validation failed: ${name ? `${name} ` : ""}${issue.message}`);
}

/** A path id; anything that is not one of our ids names no record (404). */
export function pathId(value: string | undefined): string {
  if (!isId(value)) throw notFound();
  return value;
}

// Zod helpers for Mastodon's parameter conventions, and the one place that turns a validation
// failure into Mastodon's error: 400 for a missing parameter, 422 for a wrong one.
import { z } from "zod";
import { ApiError, notFound } from "../domain/errors.ts";
import { isId } from "../domain/ids.ts";
import type { Params } from "./params.ts";

const FALSE = new Set(["0", "f", "false", "off", "no", "n"]);

/** Rails' boolean cast: false for 0/f/false/off/no, true for anything else non-empty. */
export function truthy(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  return !FALSE.has(String(value).trim().toLowerCase());
}

export const zBool = () => z.preprocess((v) => truthy(v), z.boolean().optional());

/** An integer from a string or number; empty strings count as absent. */
export const zInt = () =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), z.coerce.number().int().optional());

/** An id parameter. Anything that is not one of our ids can match no record. */
export const zId = () =>
  z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string().refine(isId, "is not a valid id"));

/** `x[]=a&x[]=b`, a lone `x=a`, or a JSON array: always an array of strings. */
export const zStrings = () =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === "" ? undefined : Array.isArray(v) ? v : [v]),
    z.array(z.coerce.string()).optional(),
  );

/** A string parameter where the empty string means "not given". */
export const zText = () => z.preprocess((v) => (v === "" || v === null ? undefined : v), z.string().optional());

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

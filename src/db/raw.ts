// SQL written by hand, for the reads every timeline request makes: building those queries with
// Kysely costs more than the database takes to answer them.
import { CompiledQuery } from "kysely";
import type { Dialect } from "./index.ts";

/** The placeholder of the `position`th parameter (from 1): `$1, $2…` on PostgreSQL, `?` on SQLite. */
export function placeholder(dialect: Dialect, position: number): string {
  return dialect === "postgres" ? `$${position}` : "?";
}

/** Collects the parameters of hand-written SQL. */
export class RawParams {
  readonly values: unknown[] = [];
  readonly #dialect: Dialect;

  constructor(dialect: Dialect) {
    this.#dialect = dialect;
  }

  /** The placeholder for `value`, added in order. */
  add(value: unknown): string {
    this.values.push(value);
    return placeholder(this.#dialect, this.values.length);
  }

  query<R>(text: string): CompiledQuery<R> {
    return CompiledQuery.raw(text, this.values) as CompiledQuery<R>;
  }
}

// Statements built and compiled once. Kysely builds a statement's tree and compiles it to SQL on
// every run; for the statements of hot paths (the inbox's and the queue's, run for every activity)
// that took as long as a round trip. Written here because Kysely has no such cache of its own.
import { CompiledQuery } from "kysely";
import type { Db } from "./index.ts";

/** Stands, in the statement as built, for a value given when it runs. */
class Slot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

type Build<Shape, Values, Row> = (db: Db, shape: Shape, values: Values) => { compile(db: Db): CompiledQuery<Row> };

/** The statement of a shape, compiled on first use; `values` are then given to `run` in the order of its parameters. */
function compiledOnce<Shape, Values extends Record<string, unknown>, Row, Out>(
  build: Build<Shape, Values, Row>,
  run: (db: Db, compiled: CompiledQuery<Row>, parameters: unknown[]) => Out,
): (db: Db, shape: Shape, values: Values) => Out {
  const made = new WeakMap<object, Map<string, CompiledQuery<Row>>>();
  return (db, shape, values) => {
    // A transaction's executor shares its database's adapter, and so the compiled statements.
    const adapter = db.getExecutor().adapter;
    let byShape = made.get(adapter);
    if (!byShape) {
      byShape = new Map();
      made.set(adapter, byShape);
    }
    const key = JSON.stringify(shape);
    let compiled = byShape.get(key);
    if (!compiled) {
      const slots = Object.fromEntries(Object.keys(values).map((name) => [name, new Slot(name)])) as Values;
      compiled = build(db, shape, slots).compile(db);
      for (const p of compiled.parameters) {
        if (!(p instanceof Slot) && typeof p === "object" && p !== null)
          throw new Error("A prepared statement binds no value of its own but constants");
      }
      byShape.set(key, compiled);
    }
    return run(
      db,
      compiled,
      compiled.parameters.map((p) => (p instanceof Slot ? values[p.name] : p)),
    );
  };
}

/**
 * A statement whose SQL is made once per database and shape, its values given by name on each run.
 * `build` gets the shape (what changes the SQL; compared by its JSON) and, for the values, slots
 * that it may only place in the statement as values, never look at. A value it binds itself must
 * be a constant: a date would keep the time of the first run.
 */
export function prepared<Shape, Values extends Record<string, unknown>, Row>(
  // A query builder or a `sql` template: both compile with the database given.
  build: Build<Shape, Values, Row>,
): (db: Db, shape: Shape, values: Values) => Promise<Row[]> {
  const run = compiledOnce(build, async (db, compiled, parameters) => {
    return (await db.executeQuery(CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<Row>)).rows;
  });
  // A statement that cannot be compiled fails as its run.
  return async (db, shape, values) => run(db, shape, values);
}

/**
 * As `prepared`, for PostgreSQL, but the SQL is returned with its values written in: for a
 * statement list, which PostgreSQL's simple protocol runs without parameters. The statement's own
 * text must hold no `$` but its parameters'.
 */
export function preparedText<Shape, Values extends Record<string, unknown>>(
  build: Build<Shape, Values, unknown>,
): (db: Db, shape: Shape, values: Values) => string {
  return compiledOnce(build, (_db, compiled, parameters) =>
    compiled.sql.replace(/\$(\d+)/g, (_, n: string) => literal(parameters[Number(n) - 1])),
  );
}

/** A value as a PostgreSQL literal (strings in the escape form, read alike whatever `standard_conforming_strings` says). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" || typeof value === "bigint") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new Error(`${value} has no literal`);
    return String(value);
  }
  const text = value instanceof Date ? value.toISOString() : String(value);
  return `E'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

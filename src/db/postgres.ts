// PostgreSQL through node-postgres, with every parameterised query a named prepared statement.
// An unnamed statement is parsed and planned on every run; a named one only once per connection,
// which halves the work of both the server and this process for the small queries Rookery makes.
// For that to pay off, a query must have one text whatever its data: `col in ($1, $2, …)` has one
// per list length, so lists of values are sent as one array instead (`col = any($1)`).
import { createHash } from "node:crypto";
import {
  type BinaryOperationNode,
  OperatorNode,
  PostgresDialect,
  PostgresQueryCompiler,
  PrimitiveValueListNode,
  type QueryCompiler,
} from "kysely";
import pg from "pg";
import { logger } from "../log.ts";
import { beginStatement } from "./relaxed_commits.ts";
import { PLAN_EACH_RUN } from "./statements.ts";

/** Compiles `x in (…values)` to `x = any($1)` and `x not in (…)` to `x <> all($1)`. */
class ArrayListCompiler extends PostgresQueryCompiler {
  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    const { operator, rightOperand } = node;
    const op = OperatorNode.is(operator) ? operator.operator : null;
    if ((op === "in" || op === "not in") && PrimitiveValueListNode.is(rightOperand)) {
      // Both are false for an empty list, as `in ()` would be.
      this.visitNode(node.leftOperand);
      this.append(op === "in" ? " = any(" : " <> all(");
      this.appendValue(rightOperand.values);
      this.append(")");
      return;
    }
    super.visitBinaryOperation(node);
  }
}

export class RookeryPostgresDialect extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new ArrayListCompiler();
  }
}

const names = new Map<string, string>();
const MAX_NAMES = 5000;

/** A statement's name: a digest of its text, so equal texts share one prepared statement. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `r${createHash("sha1").update(text).digest("base64url")}`;
    names.set(text, name);
  }
  return name;
}

const DIGITS = /^\d+$/;

/**
 * A list of ids as an array literal (`{1,2,3}`). node-postgres quotes and escapes every element of
 * an array; ids need neither, and the lists of a timeline page are sent on every request.
 */
function idList(value: unknown): unknown {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && DIGITS.test(v))) return value;
  return `{${value.join(",")}}`;
}

const log = logger("db");

/**
 * A client that prepares every query with parameters (those without may hold several statements).
 * It always listens for `error`: node-postgres emits one when the server goes away while the client
 * is checked out, and an `error` nobody hears ends the process. The query under way fails, and the
 * pool drops the client when it comes back (it is no longer queryable).
 */
export class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's constructor takes a string or a config.
  constructor(config?: any) {
    super(config);
    this.on("error", (error) => log.warn("PostgreSQL connection lost: {error}", { error: String(error) }));
  }

  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's query() has many overloads.
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === "string" && Array.isArray(values) && values.length > 0 && !config.startsWith(PLAN_EACH_RUN)) {
      return super.query({ name: statementName(config), text: config, values: values.map(idList) }, callback);
    }
    const result: unknown = super.query(typeof config === "string" ? beginStatement(config) : config, values, callback);
    // A statement list answers with each statement's result: Kysely reads the last one's rows.
    return result instanceof Promise ? result.then((r) => (Array.isArray(r) ? r.at(-1) : r)) : result;
  }
}

// Marks on statement texts that change how the database driver sends them.

/**
 * Leads the text of a statement whose best plan depends on its values (full-text search: a rare
 * word or a common one). On PostgreSQL such a statement is sent unnamed (db/postgres.ts), so it is
 * planned for the values of each run rather than settle, after five runs, on one generic plan.
 */
export const PLAN_EACH_RUN = "/* plan each run */";

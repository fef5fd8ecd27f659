/**
 * SQL text that starts with `/* corral:q<n> *\/` is a cached query shape (sql/query-cache.ts);
 * on PostgreSQL it runs as the named prepared statement `q<n>`.
 */
export const STATEMENT_NAME = /^\/\* corral:(q\d+) \*\//;

export const statementPrefix = (id: number): string => `/* corral:q${id} */ `;

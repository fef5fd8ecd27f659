/**
 * The program of one SQLite reader thread (sqlite-read-pool.ts), run with `eval` so it needs no
 * file of its own next to the build or the sources (vitest runs the TypeScript, the server the
 * build). It opens the database file read-only (the file is in WAL mode already: the main
 * connection set it, and WAL is kept in the file), with the main connection's read settings,
 * keeps prepared statements by SQL text, says `{ ready: true }`, and answers one message at a time:
 * `{ id, sql, params, one }` → `{ id, rows }` or `{ id, error: { message, code } }`.
 * Binary values cross the thread boundary as Uint8Array; better-sqlite3 binds Buffers only.
 * A changed schema needs nothing here: SQLite prepares a statement again by itself when the
 * schema moved (SQLITE_SCHEMA), and a renamed or dropped column fails the statement as it would
 * on the main connection (the schema manager reloads and the request runs again).
 */
export const SQLITE_READ_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
for (const pragma of workerData.pragmas) db.pragma(pragma);
db.defaultSafeIntegers(true);
const statements = new Map();
const prepare = (text) => {
  let statement = statements.get(text);
  if (statement === undefined) {
    statement = db.prepare(text);
    if (statements.size >= workerData.cache) statements.delete(statements.keys().next().value);
    statements.set(text, statement);
  }
  return statement;
};
const toBuffer = (value) => (value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value);
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, sql, params, one }) => {
  try {
    const statement = prepare(sql);
    const values = params.map(toBuffer);
    let rows;
    if (one === true) {
      const row = statement.get(...values);
      rows = row === undefined ? [] : [row];
    } else rows = statement.all(...values);
    parentPort.postMessage({ id, rows });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

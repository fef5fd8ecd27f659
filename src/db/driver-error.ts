import type { Dialect } from './dialect.js';

/**
 * `conflict`: a deadlock or serialization failure; running the transaction again may succeed.
 * `schemaMoved`: a table or column the statement names is gone or changed type, because
 * another node changed the schema after this one last loaded it; reload and run again.
 * `denied`: the database role may not do this (a SELECT-only role, a read-only file or server).
 * `invalidInput`: a bound value the column's type does not take (PostgreSQL's input functions:
 * `inet`, `money`, … on columns of existing tables), or a type without the operator used.
 */
export type DriverErrorKind = 'unique' | 'notNull' | 'foreignKey' | 'range' | 'invalidInput' | 'conflict' | 'unavailable' | 'schemaMoved' | 'denied' | 'other';

/** PostgreSQL: undefined column, undefined table, prepared statement missing. */
const PG_SCHEMA_MOVED = new Set(['42703', '42P01', '26000']);
/** MySQL/MariaDB: bad field, no such table, unknown table, table definition changed. */
const MYSQL_SCHEMA_MOVED = new Set([1054, 1146, 1109, 1412]);
const SQLITE_SCHEMA_MOVED = /^(no such (column|table)|table \S+ has no column named)/;

export interface ClassifiedError {
  kind: DriverErrorKind;
  /** Column name (unique on SQLite/PostgreSQL) or index name (unique on MySQL), when the driver says. */
  subject?: string;
}

const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'PROTOCOL_CONNECTION_LOST',
  // mysql2's per-query timeout; PostgreSQL's statement_timeout (query_canceled); a SQLite
  // reader thread's read past the statement timeout (sqlite-read-pool.ts).
  'PROTOCOL_SEQUENCE_TIMEOUT', '57014', 'SQLITE_READ_TIMEOUT',
  '57P01', '57P03', '53300',
]);

/** node-postgres reports its own connect and read timeouts without a code. */
const PG_UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Query read timeout',
];

interface DriverErrorShape {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  detail?: unknown;
  column?: unknown;
}

/** Maps a driver error to what it means for the client; the raw error is logged by the caller. */
export function classifyDriverError(error: unknown, dialect: Dialect): ClassifiedError {
  if (typeof error !== 'object' || error === null) return { kind: 'other' };
  const e = error as DriverErrorShape;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (UNAVAILABLE.has(code)) return { kind: 'unavailable' };
  if (dialect === 'sqlite') {
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      const column = /failed: [^.]+\.([^,\s]+)/.exec(message)?.[1];
      return column === undefined ? { kind: 'unique' } : { kind: 'unique', subject: column };
    }
    if (code === 'SQLITE_CONSTRAINT_NOTNULL') return { kind: 'notNull', subject: /failed: [^.]+\.(\S+)/.exec(message)?.[1] };
    // A RESTRICT or deferred foreign key reports as SQLITE_CONSTRAINT_TRIGGER; the message says which.
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || message.includes('FOREIGN KEY constraint failed')) return { kind: 'foreignKey' };
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT') return { kind: 'conflict' };
    if (code === 'SQLITE_CANTOPEN') return { kind: 'unavailable' };
    if (code.startsWith('SQLITE_READONLY')) return { kind: 'denied' };
    if (code === 'SQLITE_SCHEMA' || (code === 'SQLITE_ERROR' && SQLITE_SCHEMA_MOVED.test(message))) return { kind: 'schemaMoved' };
    return { kind: 'other' };
  }
  if (dialect === 'postgres') {
    if (code === '23505') {
      const column = typeof e.detail === 'string' ? /^Key \(([^)]+)\)=/.exec(e.detail)?.[1] : undefined;
      return column === undefined ? { kind: 'unique' } : { kind: 'unique', subject: column.replace(/^"|"$/g, '') };
    }
    if (code === '23502') return { kind: 'notNull', subject: typeof e.column === 'string' ? e.column : undefined };
    if (code === '23503') return { kind: 'foreignKey' };
    if (code === '22003' || code === '22001') return { kind: 'range' };
    // invalid_text_representation, invalid_datetime_format, datetime_field_overflow,
    // string_data_length_mismatch (bit(n)), undefined_function (an operator the type has not).
    if (code === '22P02' || code === '22007' || code === '22008' || code === '22026' || code === '42883') return { kind: 'invalidInput' };
    if (code === '40P01' || code === '40001' || code === '55P03') return { kind: 'conflict' };
    if (code.startsWith('08')) return { kind: 'unavailable' };
    // insufficient_privilege; read_only_sql_transaction (a hot standby, default_transaction_read_only).
    if (code === '42501' || code === '25006') return { kind: 'denied' };
    if (code === '' && PG_UNAVAILABLE_MESSAGES.some((text) => message.startsWith(text))) return { kind: 'unavailable' };
    // A named statement planned before a column changed type: "cached plan must not change result type".
    if (PG_SCHEMA_MOVED.has(code) || (code === '0A000' && message.includes('cached plan'))) return { kind: 'schemaMoved' };
    return { kind: 'other' };
  }
  const errno = typeof e.errno === 'number' ? e.errno : 0;
  if (errno === 1062) return { kind: 'unique', subject: /for key '(?:[^.']+\.)?([^']+)'/.exec(message)?.[1] };
  if (errno === 1048 || errno === 1364) return { kind: 'notNull', subject: /Column '([^']+)'/.exec(message)?.[1] ?? /Field '([^']+)'/.exec(message)?.[1] };
  if (errno === 1451 || errno === 1452) return { kind: 'foreignKey' };
  if (errno === 1213 || errno === 1205) return { kind: 'conflict' };
  if (errno === 1264 || errno === 1406 || errno === 1292 || errno === 1366) return { kind: 'range' };
  // 1969: MariaDB max_statement_time; 3024: MySQL max_execution_time.
  if (errno === 2002 || errno === 2003 || errno === 2006 || errno === 2013 || errno === 1040 || errno === 1969 || errno === 3024) return { kind: 'unavailable' };
  if (MYSQL_SCHEMA_MOVED.has(errno)) return { kind: 'schemaMoved' };
  // Command denied for a table; access denied to a database; --read-only / super_read_only; table is read only.
  if (errno === 1142 || errno === 1044 || errno === 1290 || errno === 1036 || errno === 1143) return { kind: 'denied' };
  return { kind: 'other' };
}

/**
 * Whether `error` is the database refusing a write to a role that may only read, on whichever
 * dialect (their codes do not overlap): for housekeeping writes that a read-only role skips.
 */
export function isReadOnlyRefusal(error: unknown): boolean {
  return (['sqlite', 'postgres', 'mysql'] as const).some((dialect) => classifyDriverError(error, dialect).kind === 'denied');
}

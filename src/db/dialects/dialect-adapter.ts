import type { ColumnDefinitionBuilder, Expression, Kysely, RawBuilder, SqlBool, Transaction } from 'kysely';
import type { LikeToken } from '../../text/like-pattern.js';
import type { Dialect } from '../dialect.js';
import type { JsonValue } from '../../json-value.js';
import type { DialectTraits } from './dialect-traits.js';
import type { DynamicDb } from '../database.js';
import type { DatabaseExecutor } from '../database-executor.js';
import type { ClassifiedError } from '../driver-error.js';
import type { RowEstimates } from './row-estimates.js';

/**
 * What a column stores, said once by each field type (`FieldType.column`) and spelled per
 * dialect by the adapter's `columnTypes`. A new kind fails to compile until every adapter
 * spells it.
 */
export type ColumnSpec =
  | { readonly kind: 'varchar'; readonly length: number }
  | { readonly kind: 'longText' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'bigInt' }
  | { readonly kind: 'double' }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'instant' }
  | { readonly kind: 'date' }
  | { readonly kind: 'time' }
  | { readonly kind: 'json' }
  | { readonly kind: 'uuid' };

export type ColumnKind = ColumnSpec['kind'];

/** One column type per storage kind: the Record keeps every adapter complete. */
export type ColumnTypes = { readonly [K in ColumnKind]: (spec: Extract<ColumnSpec, { kind: K }>) => string };

/** How a dialect changes a column's type, nullability or default in place. */
export type ColumnChange =
  /** Build the table anew from the next definition and copy the rows (SQLite alters no column). */
  | 'rebuildTable'
  /** `MODIFY` restates the whole column (MySQL). */
  | 'modifyColumn'
  /** `ALTER COLUMN` per property: type, null, default (PostgreSQL). */
  | 'alterColumn';

type Trx = Transaction<DynamicDb>;

/** DDL fragments: how collections' and system tables' columns, keys and indexes are spelled. */
export interface DialectDdl {
  readonly columnTypes: ColumnTypes;
  /** The type of an integer key column the database numbers (or, SQLite, its rowid alias). */
  integerKeyType(wide: boolean): string;
  /** Marks an auto-numbered key column (identity on PostgreSQL, AUTO_INCREMENT elsewhere). */
  identity(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** A system table's auto-numbered integer primary key (`wide`: 64 bits): its type, and how it is declared. */
  serialKey(wide: boolean): { readonly type: string; define(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder };
  /** Text of any length in a system table (`text` is 64 KiB on MySQL). */
  readonly longText: string;
  /** A varchar compared byte for byte whatever the table's collation. */
  binaryVarchar(length: number): string;
  /** A varchar in the given collation where the dialect has collations per column (MySQL), else plain. */
  collatedVarchar(length: number, collation: string): string;
  /** The collation collections' text compares in when the database did not say (MySQL). */
  readonly defaultCollation: string;
  /** Appended to CREATE TABLE: engine, charset and collation (MySQL); undefined where there are none. */
  tableOptions(collation?: string): RawBuilder<unknown> | undefined;
  /** Which scalar types may carry a literal DEFAULT in the column (MySQL refuses one on TEXT columns). */
  literalDefault(type: string): boolean;
  /**
   * `inline`: foreign keys are declared with the column and can be neither added nor dropped
   * later (SQLite: dropping a key column rebuilds the table). `constraint`: added afterwards
   * as named constraints, once every table they point at exists.
   */
  readonly foreignKeys: 'inline' | 'constraint';
  /** A key column's foreign key must be dropped by name before the column (MySQL). */
  readonly dropForeignKeyFirst: boolean;
  /** DROP INDEX names the table (MySQL). */
  readonly dropIndexOnTable: boolean;
  /** IF [NOT] EXISTS on an index may be refused (MySQL has neither, MariaDB both): an error then means the index is there, or gone. */
  readonly indexExistsErrors: boolean;
  readonly columnChange: ColumnChange;
  /** Statements refreshing a table's planner statistics after a bulk load (none on MySQL: ANALYZE would commit). */
  analyze(table: string): readonly string[];
  /**
   * The table's row count as the database's statistics keep it (a cheap estimate for a search's
   * count, store/search-count.ts): a query answering one row `n` (null or not positive:
   * unknown, then the rows are counted). PostgreSQL `reltuples`, MySQL `table_rows`, SQLite the
   * rowid span (no statistics are kept for collection tables there), or undefined for none.
   */
  estimatedRows(table: string): RawBuilder<{ n: unknown }> | undefined;
  /** Re-declares a column made by an earlier version in another collation; nothing where collations are not per column. */
  restateCollation(db: Kysely<DynamicDb>, table: string, column: string, type: string, collation: string): Promise<void>;
  /**
   * Runs one schema change: in a transaction, with foreign keys off on SQLite (a table
   * rebuild needs it, and it can only change outside a transaction).
   */
  schemaTransaction(executor: DatabaseExecutor, body: (trx: Trx) => Promise<void>): Promise<void>;
  /** Whether the change left rows pointing at missing ones (only SQLite, whose keys were off, can). */
  foreignKeysBroken(trx: Trx): Promise<boolean>;
  /** DDL commits at once (MySQL): a schema change cannot roll its DDL back, and bumps the version twice. */
  readonly commitsDdl: boolean;
}

/** The values of one `$array` element test, and its SQL once they are bound. */
export interface ArrayElementSql {
  /** Key fragment for how the values bind (SQLite binds strings and numbers apart). */
  valuesKey(values: readonly (string | number)[]): string;
  /** Driver values in the order `test` binds them. */
  params(values: readonly (string | number)[]): unknown[];
  /** An element of `corral_el` equals one of the values; `bound` holds `params` as parameters. */
  test(values: readonly (string | number)[], bound: readonly RawBuilder<unknown>[]): RawBuilder<SqlBool>;
}

/**
 * Operator SQL: text, pattern, array and search operators. Case folding is ASCII-only on every
 * dialect (see sql/filter-operators.ts).
 */
export interface DialectOperators {
  /** Driver value matching `term` as a substring, a prefix (`anchorStart`) or a suffix (`anchorEnd`), ASCII case folded. */
  substringParam(term: string, anchorStart: boolean, anchorEnd: boolean): string;
  /**
   * A column of an existing table read as text for the text and pattern operators (PostgreSQL
   * has no LIKE on `inet` or enum types: cast); the others match any column as text already.
   */
  asText(column: Expression<unknown>): Expression<unknown>;
  /** The test of one substring term bound as `param`. */
  substringTest(column: Expression<unknown>, param: RawBuilder<unknown>): RawBuilder<SqlBool>;
  /** Driver value of a LIKE pattern; `foldCase` for `$iLike`. */
  likeParam(tokens: readonly LikeToken[], foldCase: boolean): string;
  likeTest(column: Expression<unknown>, param: RawBuilder<unknown>, foldCase: boolean): RawBuilder<SqlBool>;
  /** The elements of a JSON array column as a row source aliased `corral_el`. */
  arrayElements(column: Expression<unknown>): RawBuilder<unknown>;
  /** A distinct key of an element of `corral_el`, for counting the wanted values a row holds. */
  readonly arrayElementKey: RawBuilder<unknown>;
  readonly arrayElementIn: ArrayElementSql;
  arrayEmpty(column: Expression<unknown>): RawBuilder<SqlBool>;
  /** The false literal, for COALESCE of a condition. */
  readonly falseSql: RawBuilder<unknown>;
}

/**
 * Driver encodings the field types need where dialects differ (schema/field-types/*). The
 * field types keep their canonical and wire forms; these only say what the driver takes or
 * gives.
 */
export interface ValueEncodings {
  /** true/false on PostgreSQL, 1/0 where booleans are integers. */
  boolean(value: boolean): unknown;
  /** A bigint as the driver binds it exactly (SQLite: the bigint, elsewhere decimal text). */
  bigInt(value: bigint): unknown;
  /** An instant as the column stores it. */
  instant(value: Date): unknown;
  /** An instant's text as the driver returns it (when not the canonical ISO form) to ISO 8601. */
  instantText(text: string): string;
  /** A decimal column's driver value to text with exactly `scale` digits after the point. */
  decimal(raw: unknown, scale: number): string;
  /** A json column's driver value (parsed already by pg, text elsewhere). */
  json(raw: unknown): JsonValue;
}

/** What a dialect has or lacks beyond `traits` (read by schema/, changes/ and cluster/). */
export interface DialectCapabilities {
  /** A uuid column type of its own, compared with uuids only (text needs a cast). */
  readonly uuidType: boolean;
  /** LISTEN/NOTIFY between nodes (pg_notify). */
  readonly notify: boolean;
  /**
   * Outbox events are written to a pending table and numbered when published (PostgreSQL):
   * writers never wait on one another for event ids.
   */
  readonly pendingOutbox: boolean;
  /**
   * How outbox events get ids that follow commit order (changes/outbox-insert.ts): when
   * published from the pending table (`atPublish`), reserved on the locked counter row
   * (`counterRow`), or after the highest written one under the single writer (`afterLast`).
   */
  readonly outboxIds: 'atPublish' | 'counterRow' | 'afterLast';
}

/**
 * Everything Corral knows about one database dialect, behind one interface (as Kysely splits
 * a dialect into adapter and compiler): DDL fragments, operator SQL, value encodings, error
 * classification and capabilities. Code outside src/db/ asks its adapter instead of comparing
 * dialect names; `adapters.ts` keeps one per `Dialect`, so a new dialect fails to compile
 * until it implements all of this.
 */
export interface DialectAdapter {
  readonly name: Dialect;
  /** What sql/ and store/ ask (RETURNING, row locks, NULLS LAST, …). */
  readonly traits: DialectTraits;
  readonly capabilities: DialectCapabilities;
  readonly ddl: DialectDdl;
  readonly operators: DialectOperators;
  readonly values: ValueEncodings;
  /** How many rows match, estimated without reading them all (`count=estimated`). */
  readonly estimates: RowEstimates;
  /** A driver error as a kind (unique, conflict, unavailable, …). */
  classifyError(error: unknown): ClassifiedError;
}

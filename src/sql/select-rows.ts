import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { SortTerm } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import { sortValueAlias, type ReadPlan } from '../plan/read-plan.js';
import { selection, type Collection, type Field, type Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { whereSql } from './filter-sql.js';
import { countMayBeHeavy, selectMayBeHeavy } from './read-weight.js';
import type { ShapeCache } from './query-cache.js';
import { KEY_ONLY, SqlPass, type Statement } from './sql-pass.js';

/** Where a query runs: the pool, or a transaction (a Transaction is a Kysely too). */
export type Executor = Kysely<DynamicDb>;

/** Where a cached statement runs: the executor, its dialect and the shape cache (the store's unit of work is one). */
export interface SqlTarget {
  readonly db: Executor;
  readonly dialect: Dialect;
  readonly shapes: ShapeCache;
}

/** The scope filter of a collection reached through an association (TRUE when unrestricted). */
export type RelatedScope = (collection: Collection) => FilterNode;

export const UNSCOPED: RelatedScope = () => TRUE_NODE;

/** A sort term's value can be NULL: a nullable field, or any path (the related row may be missing). */
const nullable = (term: SortTerm): boolean => term.field.nullable || (term.path?.length ?? 0) > 0;

const isNull = (value: unknown): boolean => value === null || value === undefined;

/**
 * The value a sort term orders by: a column, or for `author.name` a scalar subquery through
 * the to-one relations (one row at most, so the outer rows are never repeated), each level
 * ANDing its target's scope. Written in one pass with its key and values (`sql-pass.ts`): the
 * innermost subquery sits in its parent's select list, so its values bind first.
 */
function writeSortValue(term: SortTerm, table: string, pass: SqlPass, related: RelatedScope): RawBuilder<unknown> {
  const path = term.path ?? [];
  const level = (index: number, outer: string): RawBuilder<unknown> => {
    if (index === path.length) {
      pass.key += term.field.name;
      return pass.emit ? sql`${sql.ref(`${outer}.${term.field.column}`)}` : KEY_ONLY;
    }
    const relation = path[index]!;
    const alias = `s${index + 1}`;
    pass.key += `${relation.name}.`;
    const inner = level(index + 1, alias);
    const scope = related(relation.target);
    // ` and <scope>` inside the subquery, or nothing when the collection is unrestricted.
    let condition: RawBuilder<unknown> = KEY_ONLY;
    if (scope !== TRUE_NODE) {
      pass.key += '[';
      const where = whereSql(scope, pass, alias);
      pass.key += ']';
      if (pass.emit) condition = sql` and ${where}`;
    } else if (pass.emit) condition = sql``;
    if (!pass.emit) return KEY_ONLY;
    const target = sql.table(relation.target.table);
    const join = sql`${sql.ref(`${alias}.${relation.targetColumn.column}`)} = ${sql.ref(`${outer}.${relation.sourceColumn.column}`)}`;
    if (relation.type === 'belongsTo') return sql`(select ${inner} from ${target} as ${sql.id(alias)} where ${join}${condition})`;
    return sql`(select ${inner} from ${target} as ${sql.id(alias)} where ${join}${condition} order by ${sql.ref(`${alias}.${relation.target.primaryKey.column}`)} limit 1)`;
  };
  return level(0, table);
}

/** The value a sort term orders by (see `writeSortValue`), for statements the shape cache does not keep. */
export function sortValue(term: SortTerm, table: string, dialect: Dialect, related: RelatedScope): RawBuilder<unknown> {
  return writeSortValue(term, table, new SqlPass(dialect, true), related);
}

/** ORDER BY terms with NULLs last in both directions on every dialect. */
function writeOrder(order: readonly SortTerm[], table: string, pass: SqlPass, related: RelatedScope): RawBuilder<unknown>[] {
  const terms: RawBuilder<unknown>[] = [];
  pass.key += '|o:';
  for (let i = 0; i < order.length; i++) {
    const term = order[i]!;
    if (i > 0) pass.key += ',';
    pass.key += term.desc ? '-' : '+';
    if (!nullable(term)) {
      const value = writeSortValue(term, table, pass, related);
      if (pass.emit) terms.push(sql`${value} ${term.desc ? sql`desc` : sql`asc`}`);
    } else if (DIALECT_TRAITS[pass.dialect].nullsLast) {
      pass.key += '?';
      const value = writeSortValue(term, table, pass, related);
      if (pass.emit) terms.push(sql`${value} ${term.desc ? sql`desc` : sql`asc`} nulls last`);
    } else {
      // MySQL has no NULLS LAST; sorting on `value is null` first gives the same order (the
      // value is written, and its values bound, twice).
      pass.key += '?';
      const first = writeSortValue(term, table, pass, related);
      const second = writeSortValue(term, table, pass, related);
      if (pass.emit) terms.push(sql`${first} is null`, sql`${second} ${term.desc ? sql`desc` : sql`asc`}`);
    }
  }
  return terms;
}

/**
 * Rows strictly after the row whose sort values are `after`, in the order `writeOrder`
 * produces (NULLs last in both directions): some term is past the cursor's value while every
 * earlier term ties with it. A NULL value ties only with NULL and nothing non-NULL comes
 * after it; a non-NULL value is followed by larger (or smaller, descending) values and then
 * NULLs. A range on the first term comes first, so the database can seek its index instead
 * of testing every row. Written left to right, so values push in binding order.
 */
function writeKeyset(order: readonly SortTerm[], after: readonly unknown[], table: string, pass: SqlPass, related: RelatedScope): RawBuilder<unknown> {
  const { dialect, emit } = pass;
  pass.key += '|k:';
  for (let i = 0; i < order.length; i++) pass.key += isNull(after[i]) ? 'n' : 'v';
  if (order.every((_, i) => isNull(after[i]))) return emit ? sql`1 = 0` : KEY_ONLY;
  const value = (index: number) => writeSortValue(order[index]!, table, pass, related);
  const bind = (index: number) => pass.value(order[index]!.field.type.toDb(after[index], dialect));
  const first = order[0]!;
  let lead: RawBuilder<unknown> = KEY_ONLY;
  if (!nullable(first) && !isNull(after[0])) {
    pass.key += ':L';
    const leadValue = value(0);
    const leadBound = bind(0);
    if (emit) lead = sql`${leadValue} ${first.desc ? sql`<=` : sql`>=`} ${leadBound} and `;
  } else if (emit) lead = sql``;
  const disjuncts: RawBuilder<unknown>[] = [];
  for (let i = 0; i < order.length; i++) {
    if (isNull(after[i])) continue;
    const parts: RawBuilder<unknown>[] = [];
    for (let j = 0; j < i; j++) {
      const earlier = value(j);
      if (isNull(after[j])) {
        if (emit) parts.push(sql`${earlier} is null`);
      } else {
        const bound = bind(j);
        if (emit) parts.push(sql`${earlier} = ${bound}`);
      }
    }
    const term = order[i]!;
    const operator = term.desc ? sql`<` : sql`>`;
    const past = value(i);
    const bound = bind(i);
    if (nullable(term)) {
      const again = value(i);
      if (emit) parts.push(sql`(${past} ${operator} ${bound} or ${again} is null)`);
    } else if (emit) parts.push(sql`${past} ${operator} ${bound}`);
    if (emit) disjuncts.push(sql`(${sql.join(parts, sql` and `)})`);
  }
  return emit ? sql`(${lead}(${sql.join(disjuncts, sql` or `)}))` : KEY_ONLY;
}

/** Key fragments of select lists (`s|id,title,`), by list: a read shape reuses its list from request to request. */
const selectKeys = new WeakMap<readonly Field[], string>();

function selectKey(fields: readonly Field[]): string {
  let key = selectKeys.get(fields);
  if (key === undefined) {
    // join() gives one flat string; a chain of += would be copied again at every hashing.
    key = ['s|', ...fields.map((field) => `${field.name},`)].join('');
    selectKeys.set(fields, key);
  }
  return key;
}

/**
 * A read plan as one statement, written in one pass with its shape key and values in binding
 * order (sort values selected, where, keyset, order, offset). No WHERE at all when nothing
 * filters: SQLite counts a whole table from its b-tree only then. A literal LIMIT (a
 * validated integer, so part of the key): SQLite runs `limit ?` about 3x slower on a key lookup.
 */
function writeSelect(pass: SqlPass, db: Executor, plan: ReadPlan, related: RelatedScope) {
  const { emit } = pass;
  const table = plan.collection.table;
  pass.key += selectKey(plan.select);
  let query = emit ? db.selectFrom(table).select(plan.collection.renamed ? plan.select.map((field) => selection(field)) : plan.select.map((field) => field.name)) : undefined;
  if (plan.selectSortValues) {
    pass.key += '|sv:';
    plan.order.forEach((term, index) => {
      if ((term.path?.length ?? 0) === 0) return;
      pass.key += `${index}=`;
      const value = writeSortValue(term, table, pass, related);
      pass.key += ';';
      if (query !== undefined) query = query.select(sql`${value}`.as(sortValueAlias(index)));
    });
  }
  if (plan.where !== TRUE_NODE) {
    pass.key += '|w:';
    const where = whereSql(plan.where, pass, table);
    if (query !== undefined) query = query.where(where);
  }
  if (plan.after !== undefined) {
    const condition = writeKeyset(plan.order, plan.after, table, pass, related);
    if (query !== undefined) query = query.where(sql<SqlBool>`${condition}`);
  }
  const order = writeOrder(plan.order, table, pass, related);
  if (query !== undefined) for (const term of order) query = query.orderBy(term);
  if (plan.limit !== undefined) {
    pass.key += `|l${plan.limit}`;
    if (query !== undefined) query = query.limit(sql.lit(plan.limit));
  }
  if (plan.offset !== undefined && plan.offset > 0) {
    pass.key += '|o';
    pass.params.push(plan.offset);
    if (query !== undefined) query = query.offset(plan.offset);
  }
  return query;
}

/** The Kysely query of a read plan, for streams (cached reads go through `selectRows`). */
export function selectQuery(db: Executor, dialect: Dialect, plan: ReadPlan, related: RelatedScope = UNSCOPED) {
  const query = writeSelect(new SqlPass(dialect, true), db, plan, related);
  if (query === undefined) throw new Error('an emitting pass built no query');
  return query;
}

/** A read plan as a statement for the shape cache (see `writeSelect`). */
export function selectStatement(db: Executor, plan: ReadPlan, related: RelatedScope = UNSCOPED): Statement<Row> {
  return (pass) => writeSelect(pass, db, plan, related);
}

export async function selectRows({ db, dialect, shapes }: SqlTarget, plan: ReadPlan, related: RelatedScope = UNSCOPED): Promise<Row[]> {
  return shapes.run<Row>(db, plan.collection, dialect, selectStatement(db, plan, related), false, selectMayBeHeavy(plan) ? plan.collection.table : undefined);
}

export async function countRows({ db, dialect, shapes }: SqlTarget, collection: Collection, where: FilterNode): Promise<number> {
  const table = collection.table;
  const [row] = await shapes.run<{ count: unknown }>(db, collection, dialect, (pass) => {
    pass.key += 'c|';
    let query = pass.emit ? db.selectFrom(table).select(sql<unknown>`count(*)`.as('count')) : undefined;
    if (where !== TRUE_NODE) {
      const condition = whereSql(where, pass, table);
      if (query !== undefined) query = query.where(condition);
    }
    return query;
  }, false, countMayBeHeavy(collection, where) ? collection.table : undefined);
  return Number(row?.count ?? 0);
}

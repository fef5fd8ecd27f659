import { sql, type RawBuilder } from 'kysely';
import type { Collection, Field } from '../schema/collection.js';
import type { ScalarType } from '../schema/types.js';
import type { FuseWrite } from '../sql/fused-write.js';
import { CHANGES_PENDING_TABLE } from './changes-table.js';

/**
 * PostgreSQL: the outbox insert of a flat one-row write inside the write's own statement,
 *
 *   with w as (insert … returning <visible>),
 *        e as (insert into corral_changes_pending (…) select $coll, 'create', <key>, <data>, $at from w)
 *   select * from w
 *
 * one autocommitted round trip instead of BEGIN, the write, the outbox insert and COMMIT.
 * The event's `key` and `data` are built in SQL as the JSON text the JS path (outbox.ts:
 * `collection.decode`, then JSON.stringify) writes: the same members in the same order and,
 * parsed, the same values (byte for byte too, except float exponents `1e-07` and the spaces
 * inside json/array values). The pending rows are numbered by publishPending like any other.
 */
export const fusePostgresOutbox: FuseWrite = (pass, db, collection, action, write, at) => {
  pass.key += `|o${action}`;
  const name = pass.value(collection.name);
  const when = pass.value(at);
  if (write === undefined) return undefined;
  const { key, data } = eventSql(collection)!;
  const statement = sql`with w as (${write}), e as (insert into ${sql.table(CHANGES_PENDING_TABLE)} (collection, action, key, data, at) select ${name}, ${sql.lit(action)}, ${key}, ${data}, cast(${when} as bigint) from w) select * from w`;
  return { compile: () => statement.compile(db) as ReturnType<NonNullable<typeof write>['compile']> };
};

/** Whether the event of a write to `collection` can be built in SQL (else the write keeps its transaction). */
export function fusable(collection: Collection): boolean {
  return eventSql(collection) !== undefined;
}

/** Largest integer a JS number holds exactly: the JS path sends bigInts beyond it as strings. */
const MAX_SAFE = '9007199254740991';

/**
 * Each field type's value as SQL `json`, equal to what its `fromDb` gives (null stays null),
 * from the column `c` of the RETURNING row; undefined where SQL cannot render it exactly.
 */
const JSON_OF: Record<ScalarType, ((c: RawBuilder<unknown>) => RawBuilder<unknown>) | undefined> = {
  string: (c) => sql`to_json(${c})`,
  text: (c) => sql`to_json(${c})`,
  nanoid: (c) => sql`to_json(${c})`,
  uuid: (c) => sql`to_json(${c})`,
  integer: (c) => sql`to_json(${c})`,
  sort: (c) => sql`to_json(${c})`,
  bigInt: (c) => sql`case when ${c} between -${sql.raw(MAX_SAFE)} and ${sql.raw(MAX_SAFE)} then to_json(${c}) else to_json(${c}::text) end`,
  // + 0 turns -0 into 0, as JSON.stringify does.
  float: (c) => sql`to_json(${c} + 0::float8)`,
  double: (c) => sql`to_json(${c} + 0::float8)`,
  // numeric's text is what pg hands the JS path (the column's scale, trailing zeros kept).
  decimal: (c) => sql`to_json(${c}::text)`,
  boolean: (c) => sql`to_json(${c})`,
  date: (c) => sql`to_json(to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
  dateOnly: (c) => sql`to_json(to_char(${c}, 'YYYY-MM-DD'))`,
  time: (c) => sql`to_json(left(${c}::text, 8))`,
  json: (c) => sql`${c}::json`,
  array: (c) => sql`${c}::json`,
  // Hidden: never in an event (a collection showing one would not be fused).
  password: undefined,
};

interface EventSql {
  key: RawBuilder<unknown>;
  data: RawBuilder<unknown>;
}

const compiled = new WeakMap<Collection, EventSql | null>();

/** The SQL text expressions of an event's key and data over `w`, once per compiled collection. */
function eventSql(collection: Collection): EventSql | undefined {
  let entry = compiled.get(collection);
  if (entry === undefined) {
    entry = buildEventSql(collection);
    compiled.set(collection, entry);
  }
  return entry ?? undefined;
}

function buildEventSql(collection: Collection): EventSql | null {
  const parts: RawBuilder<unknown>[] = [];
  let keyJson: RawBuilder<unknown> | undefined;
  for (const [index, field] of collection.visible.entries()) {
    const json = jsonOf(field);
    if (json === undefined) return null;
    if (field === collection.key) keyJson = json;
    // Names match NAME_PATTERN: nothing in them needs escaping in JSON or in the literal.
    parts.push(sql`${sql.lit(`${index === 0 ? '{' : ','}"${field.name}":`)} || coalesce(${json}::text, 'null')`);
  }
  // The key is always in `data` on this path (the row is complete), so the JS path's key is data's.
  if (keyJson === undefined || parts.length === 0) return null;
  return { key: sql`${keyJson}::text`, data: sql`${sql.join(parts, sql` || `)} || '}'` };
}

function jsonOf(field: Field): RawBuilder<unknown> | undefined {
  return JSON_OF[field.type.name]?.(sql.ref(`w.${field.name}`));
}

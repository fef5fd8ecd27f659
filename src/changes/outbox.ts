import { selection, type Collection, type Item, type Row } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { keyFields, keyText, rowKey } from '../store/canonical.js';
import { keyFilter } from '../plan/bind-keys.js';
import { filterToSql } from '../sql/filter-sql.js';
import type { Change, ChangeSet } from '../store/change-set.js';
import type { CommitHook, UnitOfWork } from '../store/unit-of-work.js';
import { eventEncoder } from './event-encoder.js';
import { insertOutboxRows, type OutboxRow } from './outbox-insert.js';

export { CHANGES_CHANNEL } from './outbox-insert.js';
/** Outbox rows per INSERT statement. */
export const OUTBOX_INSERT_CHUNK = 200;
/** Keys per IN list when the outbox reads rows back. */
const READ_BACK_CHUNK = 500;

export type EventAction = 'create' | 'update' | 'destroy';

/** What one event says before it has an id. */
interface PendingEvent {
  collection: string;
  action: EventAction;
  key: unknown;
  data: Item;
}

const ACTION_OF = { created: 'create', updated: 'update', deleted: 'destroy' } as const;

/**
 * The beforeCommit hook that writes the outbox: one event per changed row, in the write's
 * own transaction, numbered so that ids follow commit order (insertOutboxRows, docs/events.md).
 */
export function outboxHook(snapshotOf: () => SchemaSnapshot): CommitHook {
  return async (changes, unit) => {
    if (changes.empty) return;
    const rows = await pendingRows(changes, unit, snapshotOf());
    if (rows.length === 0) return;
    const at = Date.now();
    for (let start = 0; start < rows.length; start += OUTBOX_INSERT_CHUNK) {
      await insertOutboxRows(unit.db, unit.dialect, rows.slice(start, start + OUTBOX_INSERT_CHUNK), at);
    }
  };
}

/**
 * The outbox row of one changed row whose every visible column is known (a write's
 * RETURNING row): what the hook writes for it, without reading it back.
 */
export function outboxRowOf(collection: Collection, kind: 'created' | 'updated', change: Change): OutboxRow {
  return outboxRowOfEvent(eventOf(collection, ACTION_OF[kind], change, change.after));
}

function outboxRowOfEvent(event: PendingEvent): OutboxRow {
  return { collection: event.collection, action: event.action, key: JSON.stringify(event.key), data: JSON.stringify(event.data) };
}

/**
 * The outbox rows of a unit's changes. A row whose every visible column is known goes through
 * the collection's event encoder (event-encoder.ts, the same texts as decode + JSON.stringify);
 * a deleted row known by its key alone is built here.
 */
async function pendingRows(changes: ChangeSet, unit: UnitOfWork, snapshot: SchemaSnapshot): Promise<OutboxRow[]> {
  const events: OutboxRow[] = [];
  for (const [name, byKind] of changes.collections()) {
    const collection = snapshot.get(name);
    if (collection === undefined) continue;
    const incomplete = [...byKind.created, ...byKind.updated].filter((change) => !complete(collection, change.after)).map((change) => change.key);
    const fresh = await readBack(unit, collection, incomplete);
    const encoder = eventEncoder(collection);
    for (const kind of ['created', 'updated'] as const) {
      for (const change of byKind[kind]) {
        const row = complete(collection, change.after) ? change.after! : fresh.get(keyText(change.key)) ?? change.after;
        // Gone by the end of the unit (created, then deleted): its destroy event says so.
        if (row === undefined) continue;
        const texts = encoder.js(row, unit.dialect);
        events.push(texts === undefined ? outboxRowOfEvent(eventOf(collection, ACTION_OF[kind], change, row)) : { collection: collection.name, action: ACTION_OF[kind], key: texts.key, data: texts.data });
      }
    }
    for (const change of byKind.deleted) events.push(outboxRowOfEvent(eventOf(collection, 'destroy', change, change.after)));
  }
  return events;
}

function eventOf(collection: Collection, action: EventAction, change: Change, row: Row | undefined): PendingEvent {
  const data = row === undefined ? {} : collection.decode(row, collection.visible.filter((field) => Object.hasOwn(row, field.name)));
  const key = collection.compositeKey !== undefined ? compositeJson(change.key) : data[collection.key.name] ?? jsonKey(change.key);
  if (row === undefined) {
    if (collection.compositeKey !== undefined) Object.assign(data, key);
    else data[collection.key.name] = key;
  }
  return { collection: collection.name, action, key, data };
}

/** A composite key's object, each part as jsonKey makes it. */
function compositeJson(key: unknown): Item[string] {
  return Object.fromEntries(Object.entries(key as Record<string, unknown>).map(([name, value]) => [name, jsonKey(value)])) as Item[string];
}

function jsonKey(key: unknown): Item[string] {
  if (typeof key === 'bigint') return Number.isSafeInteger(Number(key)) ? Number(key) : String(key);
  if (typeof key === 'number' || typeof key === 'string' || typeof key === 'boolean' || key === null) return key;
  return String(key);
}

/** The row carries every visible column (so it need not be read back). */
function complete(collection: Collection, row: Row | undefined): boolean {
  return row !== undefined && collection.visible.every((field) => Object.hasOwn(row, field.name));
}

/** The rows of `keys` as they are now, inside the transaction, by the text of their canonical key. */
async function readBack(unit: UnitOfWork, collection: Collection, keys: unknown[]): Promise<Map<string, Row>> {
  const out = new Map<string, Row>();
  const key = collection.key;
  for (let start = 0; start < keys.length; start += READ_BACK_CHUNK) {
    const chunk = keys.slice(start, start + READ_BACK_CHUNK);
    const select = unit.db.selectFrom(collection.table).select([...new Set([...keyFields(collection), ...collection.visible])].map((field) => selection(field)));
    const rows = (collection.compositeKey !== undefined
      ? await select.where((eb) => filterToSql(keyFilter(collection, chunk), eb, unit.dialect, collection.table)).execute()
      : await select.where(key.column, 'in', chunk.map((value) => key.type.toDb(value, unit.dialect))).execute()) as Row[];
    for (const row of rows) out.set(keyText(rowKey(collection, row, unit.dialect)), row);
  }
  return out;
}

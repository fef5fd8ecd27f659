import type { JsonValue } from '../schema/types.js';
import type { ChangeRow } from './changes-table.js';

/** An event as clients see it (API.md section 11). */
export interface ChangeEvent {
  id: number;
  collection: string;
  action: string;
  key: JsonValue;
  data: Record<string, JsonValue>;
  at: string;
}

/** Parsed once per row however many subscribers take it. */
const PARSED = new WeakMap<ChangeRow, ChangeEvent>();

export function toEvent(row: ChangeRow): ChangeEvent {
  let event = PARSED.get(row);
  if (event === undefined) {
    event = parseEvent(row);
    PARSED.set(row, event);
  }
  return event;
}

function parseEvent(row: ChangeRow): ChangeEvent {
  return { id: row.id, collection: row.collection, action: row.action, key: JSON.parse(row.key) as JsonValue, data: JSON.parse(row.data) as Record<string, JsonValue>, at: new Date(row.at).toISOString() };
}

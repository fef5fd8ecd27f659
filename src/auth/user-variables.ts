import { isRecord } from '../is-record.js';
import type { Collection } from '../schema/collection.js';
import type { ScalarType } from '../schema/types.js';
import type { Principal } from '../request/principal.js';

/** `{{$user.x}}`, or NocoBase's longer `{{ctx.state.currentUser.x}}` for the same value. */
const VARIABLE = /^\{\{\s*(?:\$user|ctx\.state\.currentUser)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** Replaces `{{$user.<field>}}` (or `{{ctx.state.currentUser.<field>}}`) strings in a grant's filter with values of `user` (null when it has none). */
export function withUser(filter: unknown, user: Principal['user']): unknown {
  if (typeof filter === 'string') {
    const name = VARIABLE.exec(filter)?.[1];
    return name === undefined ? filter : (user[name] ?? null);
  }
  if (Array.isArray(filter)) return filter.map((item) => withUser(item, user));
  if (isRecord(filter)) return Object.fromEntries(Object.entries(filter).map(([key, value]) => [key, withUser(value, user)]));
  return filter;
}

/** A value of each type, to type-check a filter's variables before any user binds them. */
const SAMPLES: Record<ScalarType, unknown> = {
  string: 'x', text: 'x', integer: 1, bigInt: 1, float: 1, double: 1, decimal: 1, boolean: true, date: '2000-01-01T00:00:00.000Z',
  dateOnly: '2000-01-01', time: '00:00:00', json: null, array: null, uuid: '00000000-0000-4000-8000-000000000000', nanoid: 'x', password: 'x', sort: 1,
};

/**
 * A user whose every field holds a sample of its type: a grant's filter is checked with its
 * variables bound to it, as a request would bind them (`{"ownerId":"{{$user.id}}"}` on an
 * integer field is an integer comparison, not a string one).
 */
export function sampleUser(users: Collection | undefined): Principal['user'] {
  const user: Record<string, unknown> = {};
  for (const field of users?.fieldList ?? []) user[field.name] = SAMPLES[field.type.name];
  return user as Principal['user'];
}

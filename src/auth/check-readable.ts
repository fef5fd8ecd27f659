import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { bindFilter, bindSearch } from '../plan/bind-filter.js';
import { bindQuery } from '../plan/bind-query.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import type { Scopes } from '../store/scope.js';

/** The fields a caller may read of a collection, by name (undefined: all of them). */
export type Readable = (collection: Collection) => ReadonlySet<string> | undefined;

/**
 * Whether any collection has a field list or no view grant at all: without either nothing
 * can be probed and nothing is bound twice.
 */
const withFieldLists = new WeakMap<Scopes, boolean>();

export function hasFieldLists(scopes: Scopes): boolean {
  let known = withFieldLists.get(scopes);
  if (known === undefined) {
    known = [...scopes.values()].some((scope) => scope.fields !== undefined || scope.denied === true);
    withFieldLists.set(scopes, known);
  }
  return known;
}

function refuse(collection: Collection, name: string, path: string): ApiError {
  return new ApiError('FORBIDDEN', `your roles do not allow reading ${name} of ${collection.name}`, { field: path });
}

/** One step of a path: `name` must be readable in `collection`. */
function step(readable: Readable, collection: Collection, name: string, path: string): void {
  if (readable(collection)?.has(name) === false) throw refuse(collection, name, path);
}

function join(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}.${name}`;
}

/**
 * Every field a bound filter tests, in the collection it belongs to: association paths must
 * be readable where they leave, and the target's fields in the target. `$search` tests every
 * searchable field, so each of them must be readable.
 */
function checkNode(readable: Readable, collection: Collection, node: FilterNode, prefix: string): void {
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const item of node.items) checkNode(readable, collection, item, prefix);
      return;
    case 'not':
      checkNode(readable, collection, node.item, prefix);
      return;
    case 'exists':
      step(readable, collection, node.relation.name, join(prefix, node.relation.name));
      // `{"profile": {"$exists": true}}` tests rows of the target: it must be readable at all.
      if (readable(node.relation.target)?.size === 0) throw refuse(node.relation.target, node.relation.target.key.name, join(prefix, node.relation.name));
      checkNode(readable, node.relation.target, node.where, join(prefix, node.relation.name));
      return;
    case 'search':
      for (const field of node.fields) step(readable, collection, field.name, join(prefix, field.name));
      return;
    case 'compare':
    case 'isNull':
    case 'in':
    case 'text':
    case 'like':
    case 'array':
      step(readable, collection, node.field.name, join(prefix, node.field.name));
      return;
    case 'const':
    case 'linkedThrough':
      return;
  }
}

/** A value reached through to-one relations (`author.name`): each relation and the field. */
function checkPath(readable: Readable, collection: Collection, path: readonly Relation[], field: Field): void {
  let current = collection;
  let prefix = '';
  for (const relation of path) {
    prefix = join(prefix, relation.name);
    step(readable, current, relation.name, prefix);
    current = relation.target;
  }
  step(readable, current, field.name, join(prefix, field.name));
}

/** Sort names (`-author.name`): unknown names are left to the read, which answers 400. */
function checkSort(readable: Readable, collection: Collection, sort: readonly string[]): void {
  for (const entry of sort) {
    const name = entry.startsWith('-') || entry.startsWith('+') ? entry.slice(1) : entry;
    const parts = name.split('.');
    let current: Collection | undefined = collection;
    for (const [index, part] of parts.entries()) {
      if (current === undefined) break;
      step(readable, current, part, parts.slice(0, index + 1).join('.'));
      current = current.relations.get(part)?.target;
    }
  }
}

/**
 * 403 FORBIDDEN when a request would test a field its roles do not let it read: in `filter`
 * (and `?q=`), `sort` (so the keyset cursor too), `filterKeys`, and the body of `query`. A
 * filter that names only readable fields answers the same as before; bad input keeps its 400.
 */
export function checkReadable(readable: Readable, collection: Collection, request: ApiRequest): void {
  const { params } = request;
  if (params.filter !== undefined) checkNode(readable, collection, bindFilter(params.filter, collection, params.timeZone), '');
  if (params.q !== undefined) checkNode(readable, collection, bindSearch(collection, params.q), '');
  if (params.sort !== undefined) checkSort(readable, collection, params.sort);
  if (params.filterKeys !== undefined && (request.action === 'firstOrCreate' || request.action === 'updateOrCreate')) {
    for (const name of params.filterKeys) step(readable, collection, name, name);
  }
  if (request.action === 'query' && isRecord(request.body)) {
    const plan = bindQuery(collection, request.body, params.timeZone);
    for (const column of plan.columns) if (column.value !== undefined) checkPath(readable, collection, column.value.path, column.value.field);
    checkNode(readable, collection, plan.where, '');
  }
}

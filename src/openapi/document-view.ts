import type { GrantAction } from '../auth/permissions.js';
import { GRANT_ACTIONS } from '../auth/system-collections.js';
import type { Relation } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { DocumentedAction } from './collection-operations.js';

/**
 * What the caller's roles grant, as the document needs it: for a collection and a grant
 * action, `null` when not granted, `undefined` when every field is, else the granted fields.
 * Row filters are not described, so they do not matter here.
 */
export interface Visibility {
  fields(collection: string, action: GrantAction): ReadonlySet<string> | undefined | null;
}

/** Everything visible: root, auth off, and the response contract check. */
export const EVERYTHING: Visibility = { fields: () => undefined };

/** Which fields a schema shows: all, or those a grant lists. */
export type Shown = (name: string) => boolean;
const ALL: Shown = () => true;

/** Request actions to the grant they need (src/auth/permissions.ts grantActionOf, authorize.ts). */
const NEEDS: Record<DocumentedAction, readonly GrantAction[]> = {
  list: ['view'],
  get: ['view'],
  count: ['view'],
  query: ['view'],
  subscribe: ['view'],
  export: ['view'],
  create: ['create'],
  import: ['create'],
  firstOrCreate: ['create'],
  update: ['update'],
  updateOrCreate: ['update', 'create'],
  move: ['update'],
  add: ['update'],
  set: ['update'],
  remove: ['update'],
  toggle: ['update'],
  destroy: ['destroy'],
};
/** Association actions that change the source's links: `update` on the source (authorize.ts LINK_ACTIONS). */
const LINK_ACTIONS = new Set<DocumentedAction>(['add', 'set', 'remove', 'toggle']);

/** The questions the document asks of a Visibility. */
export class DocumentView {
  constructor(private readonly visibility: Visibility) {}

  granted(collection: string, action: GrantAction): boolean {
    return this.visibility.fields(collection, action) !== null;
  }

  /** Described at all: some action is granted. */
  collection(name: string): boolean {
    return GRANT_ACTIONS.some((action) => this.granted(name, action));
  }

  /** A collection action, or an association action of `relation` on `collection` (the source). */
  action(collection: string, action: DocumentedAction, relation?: Relation): boolean {
    if (relation === undefined) return NEEDS[action].every((grant) => this.granted(collection, grant));
    if (LINK_ACTIONS.has(action)) return this.granted(collection, 'update') && this.granted(relation.target.name, 'view');
    return this.granted(collection, 'view') && NEEDS[action].every((grant) => this.granted(relation.target.name, grant));
  }

  /** The fields a schema of this grant shows (ALL when every field is granted). */
  shown(collection: string, action: GrantAction): Shown {
    const fields = this.visibility.fields(collection, action);
    if (fields === undefined) return ALL;
    if (fields === null) return () => false;
    return (name) => fields.has(name);
  }
}

/**
 * A text that is equal for two callers exactly when their documents are: the grants of every
 * collection of the snapshot. It stands for the role set (roles with the same grants share a
 * document) and stays right when a role is changed without a schema change.
 */
export function visibilityKey(snapshot: SchemaSnapshot, visibility: Visibility): string {
  const parts: string[] = [];
  for (const name of snapshot.collections.keys()) {
    for (const action of GRANT_ACTIONS) {
      const fields = visibility.fields(name, action);
      parts.push(fields === null ? '-' : fields === undefined ? '*' : [...fields].sort().join(','));
    }
  }
  return parts.join('\u0000');
}

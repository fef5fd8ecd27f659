import { ApiError } from '../errors/api-error.js';
import type { ActionKind } from '../request/method-rules.js';
import type { ResourcePath } from '../request/resource-path.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { appActions } from './app-actions.js';
import { authActions, createApiKeyAction } from './auth-actions.js';
import { roleResourcesActions } from './role-resources-actions.js';
import { resourceScopesActions } from './resource-scopes-actions.js';
import { API_KEYS, SCOPES } from '../auth/system-collections.js';
import { changesActions, subscribeAction } from './change-actions.js';
import { deliveryActions, webhookActions } from './webhook-actions.js';
import { ASSOCIATION_ACTIONS } from './association-actions.js';
import { LINK_ACTIONS } from './link-actions.js';
import { countAction } from './count-action.js';
import { createAction } from './create-action.js';
import { destroyAction } from './destroy-action.js';
import { firstOrCreateAction } from './first-or-create-action.js';
import { getAction } from './get-action.js';
import { listAction } from './list-action.js';
import { exportAction } from './export-action.js';
import { importAction } from './import-action.js';
import { allFieldsActions, collectionsActions, fieldsActions } from './schema-actions.js';
import { moveAction } from './move-action.js';
import { queryAction } from './query-action.js';
import { updateAction } from './update-action.js';
import { updateOrCreateAction } from './update-or-create-action.js';
import { ATTACHMENTS, isAttachmentRelation } from '../schema/attachment-field.js';
import { attachmentActions } from './attachment-actions.js';
import { uploadAction } from './attachment-upload.js';

type DataAction = (ctx: ActionContext, collection: Collection) => Promise<ActionResult>;
type Run = (ctx: ActionContext) => Promise<ActionResult>;

/** How each action is reached; an action missing here fails to compile when added below. */
const ACTION_KINDS = {
  list: 'read',
  listMeta: 'read',
  get: 'read',
  count: 'readOrPost',
  getInfo: 'readOrPost',
  export: 'read',
  import: 'write',
  signIn: 'write',
  check: 'readOrPost',
  signOut: 'write',
  create: 'write',
  update: 'write',
  destroy: 'write',
  add: 'write',
  set: 'write',
  remove: 'write',
  toggle: 'write',
  // POST: a ticket to open the stream where no header can be sent (stream-ticket.ts).
  subscribe: 'readOrPost',
  firstOrCreate: 'write',
  updateOrCreate: 'write',
  query: 'readWithBody',
  move: 'write',
  retry: 'write',
  setIndexes: 'write',
  sync: 'write',
} as const satisfies Record<string, ActionKind>;

export type ActionName = keyof typeof ACTION_KINDS;

const DATA_ACTIONS: Partial<Record<ActionName, DataAction>> = {
  list: listAction,
  get: getAction,
  count: countAction,
  create: createAction,
  update: updateAction,
  destroy: destroyAction,
  subscribe: subscribeAction,
  firstOrCreate: firstOrCreateAction,
  updateOrCreate: updateOrCreateAction,
  query: queryAction,
  move: moveAction,
  export: exportAction,
  import: (ctx, collection) => importAction(ctx, collection),
};

export interface ResolvedAction {
  name: ActionName;
  kind: ActionKind;
  run: Run;
}

function pick(table: Partial<Record<string, Run>>, action: string, resource: string): ResolvedAction {
  const run = Object.hasOwn(table, action) ? table[action] : undefined;
  if (run === undefined || !Object.hasOwn(ACTION_KINDS, action)) {
    throw new ApiError('ACTION_NOT_FOUND', `${resource} has no action ${action}`);
  }
  return { name: action as ActionName, kind: ACTION_KINDS[action as ActionName], run };
}

/** A collection's data actions, some of them replaced by its own (`own`). */
function withOwn(own: Partial<Record<string, Run>>, collection: Collection): Resource {
  return {
    toOne: false,
    action: (action) => {
      const replaced = Object.hasOwn(own, action) ? own[action] : undefined;
      const data = Object.hasOwn(DATA_ACTIONS, action) ? DATA_ACTIONS[action as ActionName] : undefined;
      if (replaced === undefined && data === undefined) throw new ApiError('ACTION_NOT_FOUND', `${collection.name} has no action ${action}`);
      return { name: action as ActionName, kind: ACTION_KINDS[action as ActionName], run: replaced ?? ((ctx) => data!(ctx, collection)) };
    },
  };
}

/** What a path addresses, resolved before the action: a missing resource is 404 whatever the method. */
export interface Resource {
  /** A to-one association: its REST path names one row, so PUT/PATCH/DELETE apply without a key. */
  toOne: boolean;
  action(name: string): ResolvedAction;
}

/**
 * Finds the resource of a path, in the order the errors are reported: the resource
 * (COLLECTION_NOT_FOUND, ASSOCIATION_NOT_FOUND), then, through `action`, the action
 * (ACTION_NOT_FOUND). The method is checked by the caller once the action is known.
 */
export function resolveResource(path: ResourcePath, snapshot: SchemaSnapshot): Resource {
  const { collection: name, association } = path;
  const table = (actions: Partial<Record<string, Run>>, resource: string): Resource => ({ toOne: false, action: (action) => pick(actions, action, resource) });
  if (name === 'app' && association === undefined) return table(appActions, 'app');
  if (name === 'auth' && association === undefined) return table(authActions, 'auth');
  if (name === 'changes' && association === undefined) return table(changesActions, 'changes');
  if (name === 'webhooks') {
    if (association === undefined) return table(webhookActions, 'webhooks');
    if (association === 'deliveries') return table(deliveryActions, 'deliveries');
    throw new ApiError('ASSOCIATION_NOT_FOUND', `webhooks have no association ${association}`);
  }
  if (name === 'collections') {
    if (association === undefined) return table(collectionsActions, 'collections');
    if (association === 'fields') return table(fieldsActions, 'fields');
    throw new ApiError('ASSOCIATION_NOT_FOUND', `collections have no association ${association}`);
  }
  // NocoBase's `fields` resource: every collection's fields (the name is reserved for collections).
  if (name === 'fields' && association === undefined) return table(allFieldsActions, 'fields');
  const collection = snapshot.get(name);
  if (collection === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
  // A role's per-collection grants (API.md §9), kept in its `resources` field.
  if (name === 'roles' && association === 'resources') return table(roleResourcesActions, 'roles.resources');
  // Named row scopes: checked against the collections and roles using them before the data action runs.
  if (name === SCOPES && association === undefined) return table(resourceScopesActions(collection), SCOPES);
  if (name === ATTACHMENTS) {
    // The content path is exact: `<id>/content`, nothing below it.
    if (association === 'content' && path.key !== undefined) throw new ApiError('ROUTE_NOT_FOUND', 'an attachment downloads at /attachments/<id>/content');
    const own = attachmentActions(collection, association);
    if (own !== undefined) return own.toOne ? { toOne: true, action: (action) => pick(own.actions, action, `${name}.${association}`) } : withOwn(own.actions, collection);
  }
  if (association === undefined) {
    return {
      toOne: false,
      action: (action) => {
        const data = Object.hasOwn(DATA_ACTIONS, action) ? DATA_ACTIONS[action as ActionName] : undefined;
        if (data === undefined) throw new ApiError('ACTION_NOT_FOUND', `${name} has no action ${action}`);
        return { name: action as ActionName, kind: ACTION_KINDS[action as ActionName], run: (ctx) => (name === API_KEYS && action === 'create' ? createApiKeyAction(ctx, collection) : data(ctx, collection)) };
      },
    };
  }
  const relation = collection.relations.get(association);
  if (relation === undefined) throw new ApiError('ASSOCIATION_NOT_FOUND', `${name} has no association ${association}`);
  return {
    toOne: !relation.toMany,
    action: (action) => {
      const run = Object.hasOwn(ASSOCIATION_ACTIONS, action)
        ? ASSOCIATION_ACTIONS[action as keyof typeof ASSOCIATION_ACTIONS]
        : Object.hasOwn(LINK_ACTIONS, action)
          ? LINK_ACTIONS[action as keyof typeof LINK_ACTIONS]
          : undefined;
      if (run === undefined) throw new ApiError('ACTION_NOT_FOUND', `${name}.${association} has no action ${action}`);
      // An attachment field's create is an upload: the new attachment is linked to the source (docs/files.md).
      if (action === 'create' && relation.type === 'belongsToMany' && isAttachmentRelation(relation.def)) {
        return { name: 'create', kind: ACTION_KINDS.create, run: (ctx) => uploadAction(ctx, relation.target, relation) };
      }
      return { name: action as ActionName, kind: ACTION_KINDS[action as ActionName], run: (ctx) => run(ctx, relation) };
    },
  };
}

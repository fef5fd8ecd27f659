import { ApiError } from '../errors/api-error.js';
import type { ActionKind } from '../http/method-rules.js';
import type { ResourcePath } from '../http/resource-path.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { appActions } from './app-actions.js';
import { ASSOCIATION_ACTIONS } from './association-actions.js';
import { LINK_ACTIONS } from './link-actions.js';
import { countAction } from './count-action.js';
import { createAction } from './create-action.js';
import { destroyAction } from './destroy-action.js';
import { getAction } from './get-action.js';
import { listAction } from './list-action.js';
import { collectionsActions, fieldsActions } from './schema-actions.js';
import { updateAction } from './update-action.js';

type DataAction = (ctx: ActionContext, collection: Collection) => Promise<ActionResult>;
type Run = (ctx: ActionContext) => Promise<ActionResult>;

/** How each action is reached; an action missing here fails to compile when added below. */
const ACTION_KINDS = {
  list: 'read',
  get: 'read',
  count: 'readOrPost',
  getInfo: 'read',
  create: 'write',
  update: 'write',
  destroy: 'write',
  add: 'write',
  set: 'write',
  remove: 'write',
  toggle: 'write',
} as const satisfies Record<string, ActionKind>;

export type ActionName = keyof typeof ACTION_KINDS;

const DATA_ACTIONS: Partial<Record<ActionName, DataAction>> = {
  list: listAction,
  get: getAction,
  count: countAction,
  create: createAction,
  update: updateAction,
  destroy: destroyAction,
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

/**
 * Finds what a path addresses, in the order the errors are reported: the resource
 * (COLLECTION_NOT_FOUND, ASSOCIATION_NOT_FOUND), then the action (ACTION_NOT_FOUND).
 * The method is checked by the caller once the action is known.
 */
export function resolveAction(path: ResourcePath, action: string, snapshot: SchemaSnapshot): ResolvedAction {
  const { collection: name, association } = path;
  if (name === 'app' && association === undefined) return pick(appActions, action, 'app');
  if (name === 'collections') {
    if (association === undefined) return pick(collectionsActions, action, 'collections');
    if (association === 'fields') return pick(fieldsActions, action, 'fields');
    throw new ApiError('ASSOCIATION_NOT_FOUND', `collections have no association ${association}`);
  }
  const collection = snapshot.get(name);
  if (collection === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
  if (association !== undefined) {
    const relation = collection.relations.get(association);
    if (relation === undefined) throw new ApiError('ASSOCIATION_NOT_FOUND', `${name} has no association ${association}`);
    const run = Object.hasOwn(ASSOCIATION_ACTIONS, action)
      ? ASSOCIATION_ACTIONS[action as keyof typeof ASSOCIATION_ACTIONS]
      : Object.hasOwn(LINK_ACTIONS, action)
        ? LINK_ACTIONS[action as keyof typeof LINK_ACTIONS]
        : undefined;
    if (run === undefined) throw new ApiError('ACTION_NOT_FOUND', `${name}.${association} has no action ${action}`);
    return { name: action as ActionName, kind: ACTION_KINDS[action as ActionName], run: (ctx) => run(ctx, relation) };
  }
  const data = Object.hasOwn(DATA_ACTIONS, action) ? DATA_ACTIONS[action as ActionName] : undefined;
  if (data === undefined) throw new ApiError('ACTION_NOT_FOUND', `${name} has no action ${action}`);
  return { name: action as ActionName, kind: ACTION_KINDS[action as ActionName], run: (ctx) => data(ctx, collection) };
}

import fc from 'fast-check';
import { GRANTED, OWNED, SCHEMA, relationOf, type CollectionName } from './access-schema.js';

/** A random role (docs/auth.md "Roles and grants") and the oracle's reading of it. */
export const ACTIONS = ['view', 'create', 'update', 'destroy'] as const;
export type Action = (typeof ACTIONS)[number];

export type RowFilter = Record<string, unknown>;
/**
 * `scope: 'own'`: only rows whose createdById is the caller (ANDed with `filter`). `named`:
 * the filter is sent as a `rolesResourcesScopes` row the action names by `scopeId`
 * (docs/auth.md "Named scopes"): the same rows, so the oracle reads it like an inline filter.
 */
export interface ActionGrant {
  readonly fields?: readonly string[];
  readonly filter?: RowFilter;
  readonly scope?: 'own';
  readonly named?: true;
}
/** A strategy action: every row, or `<action>:own` (docs/auth.md). */
export type StrategyAction = Action | 'view:own' | 'update:own' | 'destroy:own';
/**
 * One role, and `also` a second role of the same user: the request then acts with both
 * (X-Role: __union__), which the oracle reads as the union of the two grants.
 */
export interface Grant {
  readonly strategy: readonly StrategyAction[];
  readonly resources: Partial<Record<CollectionName, Partial<Record<Action, ActionGrant>>>>;
  readonly also?: Grant;
}
const OWN_ACTIONS: readonly Action[] = ['view', 'update', 'destroy'];

const USER = '{{$user.id}}';
const n = fc.integer({ min: 0, max: 20 });

/** The row filters a grant may carry, per collection: own rows, thresholds, exclusions, an association path. */
const FILTERS: Record<Exclude<CollectionName, 'posts_tags'>, fc.Arbitrary<RowFilter>> = {
  posts: fc.oneof(
    fc.constant({ ownerId: USER }),
    n.map((v) => ({ views: { $gt: v } })),
    fc.constantFrom('a', 'hidden', 'x').map((v) => ({ title: { $ne: v } })),
    n.map((v) => ({ $or: [{ ownerId: USER }, { views: { $lt: v } }] })),
    fc.integer({ min: 0, max: 9 }).map((v) => ({ author: { rating: { $gt: v } } })),
  ),
  comments: fc.oneof(fc.constant({ post: { ownerId: USER } }), fc.constant({ body: { $ne: 'hidden' } }), fc.constant({ secretNote: { $ne: 'x' } })),
  authors: fc.oneof(fc.integer({ min: 0, max: 9 }).map((v) => ({ rating: { $gt: v } })), fc.constant({ name: { $ne: 'hidden' } })),
  profiles: fc.oneof(fc.constant({ bio: { $ne: 'hidden' } }), fc.constant({ code: { $ne: 'c-ann' } })),
  tags: fc.constant({ label: { $ne: 'hidden' } }),
};

/** Every name a field list may hold: columns and relations. */
export const grantableFields = (collection: CollectionName): string[] => [...SCHEMA[collection].columns, ...SCHEMA[collection].relations.map((r) => r.name)];

function actionGrantArb(collection: Exclude<CollectionName, 'posts_tags'>, action: Action): fc.Arbitrary<ActionGrant> {
  // Field lists mostly leave out a few fields (the realistic "all but secret"), sometimes keep only a few.
  const all = grantableFields(collection);
  const list = fc.oneof({ arbitrary: fc.subarray(all, { minLength: 1, maxLength: 3 }).map((out) => all.filter((f) => !out.includes(f))), weight: 3 }, { arbitrary: fc.subarray(all, { minLength: 1 }), weight: 1 });
  const fields = action === 'destroy' ? fc.constant(undefined) : fc.option(list, { nil: undefined, freq: 2 });
  // A create filter is not a row scope the contract defines; create grants only get field lists.
  const filter = action === 'create' ? fc.constant(undefined) : fc.option(FILTERS[collection], { nil: undefined, freq: 2 });
  // The own scope, where the collection records creators (elsewhere it is refused when the role is saved).
  const own = OWNED.has(collection) && OWN_ACTIONS.includes(action) ? fc.boolean() : fc.constant(false);
  return fc
    .record({ fields, filter, own, named: fc.boolean() })
    .map(({ fields: f, filter: w, own: o, named }) => ({ ...(f === undefined ? {} : { fields: f }), ...(w === undefined ? {} : { filter: w, ...(named ? { named: true as const } : {}) }), ...(o ? { scope: 'own' as const } : {}) }));
}

const resourceArb = (collection: Exclude<CollectionName, 'posts_tags'>): fc.Arbitrary<Partial<Record<Action, ActionGrant>>> =>
  fc
    // view is usually granted, so most reads reach the answer checks instead of a 403.
    .record(Object.fromEntries(ACTIONS.map((action) => [action, fc.option(actionGrantArb(collection, action), { nil: undefined, freq: action === 'view' ? 8 : 3 })])) as Record<Action, fc.Arbitrary<ActionGrant | undefined>>)
    .map((actions) => Object.fromEntries(Object.entries(actions).filter(([, grant]) => grant !== undefined)));

/** Strategy actions, some view/update/destroy narrowed to `:own`. */
const strategyArb: fc.Arbitrary<StrategyAction[]> = fc
  .subarray([...ACTIONS])
  .chain((actions) => fc.tuple(...actions.map((action) => (OWN_ACTIONS.includes(action) ? fc.boolean() : fc.constant(false)))).map((owns) => actions.map((action, i) => (owns[i] ? (`${action}:own` as StrategyAction) : action))));

const oneRoleArb: fc.Arbitrary<Grant> = fc.record({
  strategy: strategyArb,
  resources: fc
    .record(Object.fromEntries(GRANTED.map((c) => [c, fc.option(resourceArb(c as Exclude<CollectionName, 'posts_tags'>), { nil: undefined, freq: 5 })])) as Record<string, fc.Arbitrary<Partial<Record<Action, ActionGrant>> | undefined>>)
    .map((all) => Object.fromEntries(Object.entries(all).filter(([, r]) => r !== undefined))),
});

/** One role in a third of the scenarios; in the others (fc.option nil = 1/3) the user also holds a second role and acts with both. */
export const grantArb: fc.Arbitrary<Grant> = fc.tuple(oneRoleArb, fc.option(oneRoleArb, { nil: undefined, freq: 3 })).map(([one, also]) => (also === undefined ? one : { ...one, also }));

/** The role row the grant is sent as (a `named` filter still inline: `sendRole` makes it a scope row). */
export function roleBody(name: string, grant: Grant): Record<string, unknown> {
  return {
    name,
    strategy: { actions: grant.strategy },
    resources: Object.entries(grant.resources).map(([collection, actions]) => ({
      name: collection,
      actions: Object.entries(actions ?? {}).map(([action, g]) => ({ name: action, ...g })),
    })),
  };
}

/**
 * The grant of one action on one collection: undefined when refused; `{}` when unrestricted.
 * An own scope becomes the filter term `$own` (world.ts); with `also`, the union: allowed by
 * either, fields added up, row filters OR-ed (every row when either grants every row).
 */
export function grantOf(grant: Grant, collection: CollectionName, action: Action): ActionGrant | undefined {
  const one = roleGrantOf(grant, collection, action);
  if (grant.also === undefined) return one;
  const other = roleGrantOf(grant.also, collection, action);
  if (one === undefined || other === undefined) return one ?? other;
  const fields = one.fields === undefined || other.fields === undefined ? undefined : [...new Set([...one.fields, ...other.fields])];
  const filter = one.filter === undefined || other.filter === undefined ? undefined : { $or: [one.filter, other.filter] };
  return { ...(fields === undefined ? {} : { fields }), ...(filter === undefined ? {} : { filter }) };
}

function roleGrantOf(grant: Grant, collection: CollectionName, action: Action): ActionGrant | undefined {
  const resource = grant.resources[collection];
  const given = resource !== undefined ? resource[action] : grant.strategy.includes(action) ? {} : grant.strategy.includes(`${action}:own` as StrategyAction) ? { scope: 'own' as const } : undefined;
  if (given?.scope !== 'own') return given;
  const { scope: _scope, filter, ...rest } = given;
  return { ...rest, filter: filter === undefined ? { $own: true } : { $and: [filter, { $own: true }] } };
}

/**
 * Whether a field list admits `field`; a key column and its relation stand for each other
 * (`authorId` and `author` both name the link), and the key is always admitted.
 */
export function fieldAllowed(g: ActionGrant, collection: CollectionName, field: string): boolean {
  if (g.fields === undefined || field === 'id') return true;
  if (g.fields.includes(field)) return true;
  const relation = SCHEMA[collection].relations.find((r) => r.kind === 'belongsTo' && (r.foreignKey === field || r.name === field));
  return relation !== undefined && (g.fields.includes(relation.name) || g.fields.includes(relation.foreignKey));
}

/** Whether a relation step out of `collection` may be read (named in the view grant). */
export function relationReadable(grant: Grant, collection: CollectionName, name: string): boolean {
  const view = grantOf(grant, collection, 'view');
  const relation = relationOf(collection, name);
  return view !== undefined && relation !== undefined && (view.fields === undefined || view.fields.includes(name)) && grantOf(grant, relation.target, 'view') !== undefined;
}

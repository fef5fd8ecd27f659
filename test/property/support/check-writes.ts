import { ALL, KEY_COLUMNS, SCHEMA, type CollectionName } from './access-schema.js';
import type { Leak } from './check-answer.js';
import { fieldAllowed, grantOf, type Grant } from './grant.js';
import { inScope, type Row, type World } from './world.js';

/**
 * Oracle part 2: no stored row changes outside the write grants. Diffs root's snapshots
 * before and after a request and accepts each change only when a grant explains it:
 * - an inserted row: `create` on its collection, its non-empty fields in the create field set;
 * - a deleted row: `destroy` with the row (before) in its filter, or a cascade of a deleted
 *   referenced row, or an unlink (through rows) allowed by `update` on the post;
 * - a changed column: `update` with the row (before) in its filter and the field in the update
 *   field set; a key column may instead change as a link from the other side (the new or old
 *   owner updatable, or created in this request), or to NULL when the row it pointed at was
 *   deleted (ON DELETE SET NULL);
 * - every link (a key column set to a row, a through row) points at a row visible under the
 *   target's view grant, or at one this request created.
 * `updatedAt` is the database's bookkeeping and not judged.
 */
export interface Diff {
  readonly inserted: Array<[CollectionName, Row]>;
  readonly deleted: Array<[CollectionName, Row]>;
  readonly updated: Array<[CollectionName, Row, Row, string[]]>;
}

export function diffWorlds(before: World, after: World): Diff {
  const diff: Diff = { inserted: [], deleted: [], updated: [] };
  for (const collection of ALL) {
    for (const [key, row] of after[collection]) {
      const old = before[collection].get(key);
      if (old === undefined) diff.inserted.push([collection, row]);
      else {
        const changed = SCHEMA[collection].columns.filter((c) => c !== 'updatedAt' && JSON.stringify(old[c] ?? null) !== JSON.stringify(row[c] ?? null));
        if (changed.length > 0) diff.updated.push([collection, old, row, changed]);
      }
    }
    for (const [key, row] of before[collection]) if (!after[collection].has(key)) diff.deleted.push([collection, row]);
  }
  return diff;
}

export const writtenKeys = (diff: Diff): Set<string> => new Set([...diff.inserted, ...diff.updated].map(([c, row]) => `${c}:${String(row.id)}`));

interface Ctx {
  readonly grant: Grant;
  readonly userId: number;
  readonly before: World;
  readonly after: World;
  readonly created: Set<string>;
  readonly deleted: Set<string>;
}

const keyOf = (collection: CollectionName, key: unknown): string => `${collection}:${String(key)}`;
const targetOf = (collection: CollectionName, column: string): CollectionName | undefined => KEY_COLUMNS.find(([c, k]) => c === collection && k === column)?.[2];
/** The relation on the target side that owns `collection.column` as its hasOne/hasMany key (authors.profile for profiles.authorId). */
const ownerRelation = (collection: CollectionName, column: string): string | undefined => {
  const target = targetOf(collection, column);
  if (target === undefined) return undefined;
  return SCHEMA[target].relations.find((r) => r.target === collection && r.foreignKey === column && (r.kind === 'hasMany' || r.kind === 'hasOne' || r.kind === 'belongsToMany'))?.name;
};

/** The row may be updated (before) under the update grant. */
const updatable = (ctx: Ctx, collection: CollectionName, key: unknown): boolean => inScope(ctx.grant, 'update', collection, ctx.before[collection].get(Number(key)), ctx.before, ctx.userId);
/** A link target: visible under the view grant (before), or created by this request. */
const linkable = (ctx: Ctx, collection: CollectionName, key: unknown): boolean =>
  ctx.created.has(keyOf(collection, key)) || inScope(ctx.grant, 'view', collection, ctx.before[collection].get(Number(key)), ctx.before, ctx.userId);
/** The other side links: the owner row is updatable (or was created here with `create` on it) and names the relation if it lists fields. */
function ownerMayLink(ctx: Ctx, owner: CollectionName, key: unknown, relation: string): boolean {
  const created = ctx.created.has(keyOf(owner, key));
  const g = grantOf(ctx.grant, owner, created ? 'create' : 'update');
  if (g === undefined || !fieldAllowed(g, owner, relation)) return false;
  return created || updatable(ctx, owner, key);
}

function columnChange(ctx: Ctx, collection: CollectionName, old: Row, now: Row, column: string): string | undefined {
  const target = targetOf(collection, column);
  const own = grantOf(ctx.grant, collection, 'update');
  const byOwnUpdate = updatable(ctx, collection, old.id) && own !== undefined && fieldAllowed(own, collection, column);
  if (target === undefined) return byOwnUpdate ? undefined : `${collection} ${String(old.id)}.${column} changed ${JSON.stringify(old[column])} → ${JSON.stringify(now[column])} outside the update grant`;
  const from = old[column];
  const to = now[column];
  if (to === null && from !== null && ctx.deleted.has(keyOf(target, from))) return undefined;
  // This row is the link's source (comments/1/post:set, {"postId": 2}): the new target must be visible.
  if (byOwnUpdate && (to === null || linkable(ctx, target, to))) return undefined;
  // The row is the link's target, linked from the owner's side (posts/1/comments:add, a nested hasMany):
  // the owner must be writable and this row visible.
  const relation = ownerRelation(collection, column);
  if (relation !== undefined && linkable(ctx, collection, old.id)) {
    if (to !== null && ownerMayLink(ctx, target, to, relation)) return undefined;
    if (from !== null && ownerMayLink(ctx, target, from, relation)) return undefined;
  }
  const why = [
    byOwnUpdate ? `${target} ${String(to)} is not visible` : `not by ${collection}'s update grant`,
    relation === undefined ? undefined : !linkable(ctx, collection, old.id) ? `${collection} ${String(old.id)} is not visible for a link from ${target}.${relation}` : `not by ${target}'s update grant naming ${relation}`,
  ].filter((reason) => reason !== undefined);
  return `${collection} ${String(old.id)}.${column} changed ${JSON.stringify(from)} → ${JSON.stringify(to)}: ${why.join('; ')}`;
}

function insertProblem(ctx: Ctx, collection: CollectionName, row: Row): string | undefined {
  if (collection === 'posts_tags') {
    if (!linkable(ctx, 'tags', row.tagId)) return `posts_tags linked tag ${String(row.tagId)}, which is not visible`;
    return ownerMayLink(ctx, 'posts', row.postId, 'tags') ? undefined : `posts_tags row linking post ${String(row.postId)} without update (or create) on it`;
  }
  const create = grantOf(ctx.grant, collection, 'create');
  if (create === undefined) return `${collection} ${String(row.id)} inserted without create`;
  // The server stamps the creator: a row created in another's name is a forgery.
  if (SCHEMA[collection].columns.includes('createdById') && row.createdById !== ctx.userId) return `${collection} ${String(row.id)} inserted with createdById ${String(row.createdById)}, not the caller's`;
  for (const column of SCHEMA[collection].columns) {
    if (['id', 'createdAt', 'updatedAt', 'createdById'].includes(column) || row[column] === null || row[column] === undefined) continue;
    const target = targetOf(collection, column);
    if (target !== undefined) {
      // Linked by this row ({"postId": 2}: the target must be visible) or by its owner (posts/2/comments:create).
      const relation = ownerRelation(collection, column);
      if (relation !== undefined && ownerMayLink(ctx, target, row[column], relation)) continue;
      if (!fieldAllowed(create, collection, column)) return `${collection} ${String(row.id)} inserted with ${column} outside the create grant`;
      if (!linkable(ctx, target, row[column])) return `${collection} ${String(row.id)} inserted linked to ${target} ${String(row[column])}, which is not visible`;
    } else if (!fieldAllowed(create, collection, column)) return `${collection} ${String(row.id)} inserted with ${column}=${JSON.stringify(row[column])} outside the create field set`;
  }
  return undefined;
}

function deleteProblem(ctx: Ctx, collection: CollectionName, row: Row): string | undefined {
  if (inScope(ctx.grant, 'destroy', collection, row, ctx.before, ctx.userId)) return undefined;
  if (collection === 'posts_tags') {
    if (ctx.deleted.has(keyOf('posts', row.postId)) || ctx.deleted.has(keyOf('tags', row.tagId))) return undefined;
    if (ownerMayLink(ctx, 'posts', row.postId, 'tags')) return undefined;
    return `posts_tags ${String(row.id)} (post ${String(row.postId)}, tag ${String(row.tagId)}) deleted without a grant`;
  }
  return `${collection} ${String(row.id)} deleted outside the destroy grant`;
}

export function writeLeaks(grant: Grant, userId: number, before: World, after: World, diff: Diff): Leak[] {
  const ctx: Ctx = { grant, userId, before, after, created: new Set(diff.inserted.map(([c, r]) => keyOf(c, r.id))), deleted: new Set(diff.deleted.map(([c, r]) => keyOf(c, r.id))) };
  const leaks: Leak[] = [];
  for (const [collection, row] of diff.inserted) {
    const problem = insertProblem(ctx, collection, row);
    if (problem !== undefined) leaks.push({ kind: problem.includes('not visible') ? 'write-link' : 'write-create', detail: problem });
  }
  for (const [collection, row] of diff.deleted) {
    const problem = deleteProblem(ctx, collection, row);
    if (problem !== undefined) leaks.push({ kind: 'write-destroy', detail: problem });
  }
  for (const [collection, old, now, columns] of diff.updated) {
    for (const column of columns) {
      const problem = columnChange(ctx, collection, old, now, column);
      if (problem !== undefined) leaks.push({ kind: targetOf(collection, column) !== undefined ? 'write-link' : 'write-update', detail: problem });
    }
  }
  return leaks;
}

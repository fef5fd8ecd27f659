import { SCHEMA, relationOf, type CollectionName } from './access-schema.js';
import { fieldAllowed, grantOf, type Grant } from './grant.js';
import type { RequestTemplate } from './request-template.js';
import { inScope, type Row, type World } from './world.js';

/**
 * Oracle part 1: nothing an answer holds is outside the caller's `view` grant. Walks the
 * answer's items (appended ones at every level): each object of collection C carries only
 * fields of C's view field set (the key always), is a stored row within C's view row filter,
 * and shows that row's stored values. A write's answer may name a row it wrote by its key
 * alone even outside the view scope (semantics: "the key field only"), and so may an update
 * name the rows of its update scope it matched.
 */
export interface Leak {
  readonly kind: string;
  readonly detail: string;
}

export interface AnswerContext {
  readonly grant: Grant;
  readonly userId: number;
  /** Root's rows when the answer was given (after the request). */
  readonly world: World;
  /** `collection:key` of every row the request inserted or changed. */
  readonly written: ReadonlySet<string>;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function checkItem(item: Record<string, unknown>, collection: CollectionName, ctx: AnswerContext, write: boolean, leaks: Leak[]): void {
  const view = grantOf(ctx.grant, collection, 'view');
  const keys = Object.keys(item);
  const relations = keys.filter((k) => relationOf(collection, k) !== undefined);
  const columns = keys.filter((k) => relationOf(collection, k) === undefined);
  const keyOnly = relations.length === 0 && columns.every((k) => k === 'id');
  const id = item.id;
  // Key only: a row the request wrote, or one within its update scope (a no-op update changes nothing yet names the rows it matched).
  if (write && keyOnly && id !== undefined && (ctx.written.has(`${collection}:${String(id)}`) || inScope(ctx.grant, 'update', collection, ctx.world[collection].get(Number(id)), ctx.world, ctx.userId))) return;
  for (const column of columns) {
    if (!SCHEMA[collection].columns.includes(column)) leaks.push({ kind: 'field', detail: `${collection}.${column} is not a field of ${collection}` });
    else if (view === undefined ? column !== 'id' : !fieldAllowed(view, collection, column)) leaks.push({ kind: 'field', detail: `${collection}.${column} outside the view grant` });
  }
  for (const name of relations) {
    if (view?.fields !== undefined && !view.fields.includes(name)) leaks.push({ kind: 'field', detail: `${collection}.${name} (appended) outside the view grant` });
    walkItems(item[name], relationOf(collection, name)!.target, ctx, write, leaks);
  }
  const rows: Row[] = id !== undefined ? [ctx.world[collection].get(Number(id))].filter((r): r is Row => r !== undefined) : [...ctx.world[collection].values()].filter((row) => columns.every((c) => same(row[c], item[c])));
  if (rows.length === 0) {
    leaks.push({ kind: 'phantom', detail: `${collection} item ${JSON.stringify(item).slice(0, 200)} matches no stored row` });
    return;
  }
  if (!rows.some((row) => inScope(ctx.grant, 'view', collection, row, ctx.world, ctx.userId))) {
    leaks.push({ kind: 'row', detail: `${collection} row ${String(rows[0]!.id)} is outside the view ${view === undefined ? 'grant (none)' : `filter ${JSON.stringify(view.filter)}`}` });
  }
  // A write's answer may be read mid-request (a bulk item before the next one moved a link): only reads must match the stored values.
  if (id !== undefined && !write) {
    const differs = columns.filter((c) => SCHEMA[collection].columns.includes(c) && !same(rows[0]![c], item[c]));
    if (differs.length > 0) leaks.push({ kind: 'phantom', detail: `${collection} ${String(id)}: ${differs.map((c) => `${c}=${JSON.stringify(item[c])} but stored ${JSON.stringify(rows[0]![c])}`).join(', ')}` });
  }
}

export function walkItems(value: unknown, collection: CollectionName, ctx: AnswerContext, write: boolean, leaks: Leak[]): void {
  if (Array.isArray(value)) for (const entry of value) walkItems(entry, collection, ctx, write, leaks);
  else if (isRecord(value)) checkItem(value, collection, ctx, write, leaks);
}

const visibleRows = (collection: CollectionName, ctx: AnswerContext): Row[] => [...ctx.world[collection].values()].filter((row) => inScope(ctx.grant, 'view', collection, row, ctx.world, ctx.userId));

/**
 * Why `path` (a field path from `collection`) is not readable: 'touch' when it reaches a
 * collection without a view grant, 'probe' when a step is outside a view field list; undefined
 * when every step is granted.
 */
export function unreadable(grant: Grant, collection: CollectionName, path: string): 'touch' | 'probe' | undefined {
  let current = collection;
  for (const step of path.split('.')) {
    const view = grantOf(grant, current, 'view');
    if (view === undefined) return 'touch';
    if (step !== 'id' && view.fields !== undefined && !view.fields.includes(step)) return 'probe';
    const relation = relationOf(current, step);
    if (relation === undefined) return undefined;
    current = relation.target;
  }
  return grantOf(grant, current, 'view') === undefined ? 'touch' : undefined;
}

/** Leaks in a 2xx answer of a read or write template (changes:list is checked by check-events.ts). */
export function answerLeaks(template: RequestTemplate, body: any, ctx: AnswerContext, sourceKey: number | undefined): Leak[] {
  const leaks: Leak[] = [];
  const collection = template.answers;
  // A write with a view grant binds its filter and filterKeys to it (docs/auth.md); reads always do.
  const checksProbes = template.kind !== 'write' && template.kind !== 'none' ? true : collection !== undefined && grantOf(ctx.grant, collection, 'view') !== undefined;
  if (checksProbes) {
    for (const [c, path] of template.probes) {
      const why = unreadable(ctx.grant, c, path);
      if (why !== undefined) leaks.push({ kind: why, detail: `answered 2xx though it reads ${c}.${path}, ${why === 'touch' ? 'through a collection without a view grant' : 'outside the view field list'}` });
    }
  }
  if (template.source !== undefined && sourceKey !== undefined && !inScope(ctx.grant, 'view', template.source, ctx.world[template.source].get(sourceKey), ctx.world, ctx.userId)) {
    leaks.push({ kind: 'source', detail: `an association read below ${template.source} ${sourceKey}, which is not visible, answered 2xx` });
  }
  if (collection === undefined) return leaks;
  const visible = visibleRows(collection, ctx);
  if (template.kind === 'read' || template.kind === 'write') {
    walkItems(body?.data, collection, ctx, template.kind === 'write', leaks);
    const count = body?.meta?.count;
    if (typeof count === 'number' && count > visible.length) leaks.push({ kind: 'count', detail: `meta.count ${count} > ${visible.length} visible ${collection}` });
  } else if (template.kind === 'count') {
    if (typeof body?.data === 'number' && body.data > visible.length) leaks.push({ kind: 'count', detail: `count ${body.data} > ${visible.length} visible ${collection}` });
  } else if (template.kind === 'query') {
    const groups: Array<Record<string, unknown>> = Array.isArray(body?.data) ? body.data : isRecord(body?.data) ? [body.data] : [];
    const total = groups.reduce((sum, g) => sum + Number(g.n ?? 0), 0);
    if (total > visible.length) leaks.push({ kind: 'count', detail: `query counts ${total} > ${visible.length} visible ${collection}` });
    const request = template.body as { measures: Array<{ field?: string; alias: string }>; dimensions?: Array<{ field: string }> };
    const fieldOf: Record<string, string | undefined> = { m: request.measures[1]?.field, d: request.dimensions?.[0]?.field };
    for (const group of groups) {
      for (const alias of ['m', 'd']) {
        const field = fieldOf[alias];
        if (field === undefined || group[alias] === null || group[alias] === undefined) continue;
        if (!visible.some((row) => same(row[field], group[alias]))) leaks.push({ kind: 'query', detail: `query ${alias} (${field}) = ${JSON.stringify(group[alias])}: no visible ${collection} row has it` });
      }
    }
  }
  return leaks;
}

import type { CollectionName } from './access-schema.js';
import { inScope, type World } from './world.js';
import type { Action, Grant } from './grant.js';

/**
 * A generated request before it meets the data: row keys are `Ref`s, resolved against root's
 * snapshot at the moment the request is sent, so a shrunk or replayed case still names rows
 * of the kind it was generated for (one in the grant's scope, one outside it, a missing one).
 */
export interface Ref {
  readonly $ref: CollectionName;
  /** The grant whose row scope `pick` is relative to. */
  readonly scope: Action;
  readonly pick: 'in' | 'out' | 'any' | 'missing';
  readonly n: number;
  /** Resolve to this field's value of the row instead of its key. */
  readonly field?: string;
  /**
   * An `out` row here must answer exactly like a missing one (invisible link targets, keys of
   * reads, updates and destroys outside their scope): the request is sent again with a missing
   * key and the two errors compared.
   */
  readonly compare?: boolean;
}
/** Stands for the signed-in user's id (an `ownerId` value). */
export interface UserRef { readonly $user: true }
/** Stands for the last change event id before the run (changes:list `after`). */
export interface AfterRef { readonly $after: true }

export type AnswerKind = 'read' | 'write' | 'count' | 'query' | 'changes' | 'none';

export interface RequestTemplate {
  /** The route family, for the histogram and the report. */
  readonly family: string;
  readonly method: 'GET' | 'POST';
  readonly path: ReadonlyArray<string | Ref>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  /** The collection the answer's items belong to. */
  readonly answers?: CollectionName;
  readonly kind: AnswerKind;
  /** Field paths the request reads (filter, sort, q, query, filterKeys), relative to the collection. */
  readonly probes: ReadonlyArray<readonly [CollectionName, string]>;
  /** Ask for the next page with `meta.nextCursor`. */
  readonly followCursor?: boolean;
  /** A read through an association: the source row (path[1]) must be visible for a 2xx. */
  readonly source?: CollectionName;
}

export interface Resolved {
  readonly url: string;
  readonly body?: unknown;
  /** Keys of `out` rows in compare positions, and the missing keys that stand in for them. */
  readonly compared: ReadonlyArray<readonly [number, number]>;
  /** The source row's key of an association route. */
  readonly sourceKey?: number;
}

export const MISSING_BASE = 900_000;
/** Integer fields a `field` ref may name: a value no row has is a number too. */
const NUMBERS = new Set(['views', 'ownerId', 'rating']);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface ResolveContext {
  readonly world: World;
  readonly grant: Grant;
  readonly userId: number;
  readonly after: number;
  /** Resolve every compared `out` ref as missing (the second request of a comparison). */
  readonly asMissing?: boolean;
}

export function resolve(template: RequestTemplate, ctx: ResolveContext): Resolved {
  const compared: Array<[number, number]> = [];
  const pickRow = (ref: Ref): unknown => {
    const rows = [...ctx.world[ref.$ref].values()];
    const pool = ref.pick === 'any' ? rows : ref.pick === 'missing' ? [] : rows.filter((row) => inScope(ctx.grant, ref.scope, ref.$ref, row, ctx.world, ctx.userId) === (ref.pick === 'in'));
    const missing = MISSING_BASE + ref.n;
    if (pool.length === 0) return ref.field === undefined || NUMBERS.has(ref.field) ? missing : `none-${ref.n}`;
    const row = pool[ref.n % pool.length]!;
    if (ref.field !== undefined) return row[ref.field];
    const key = Number(row.id);
    if (ref.pick === 'out' && ref.compare === true) {
      // Each compared position gets its own stand-in (above every plain missing key), so the two answers map one to one.
      const seen = compared.find(([k]) => k === key);
      const stand = seen?.[1] ?? MISSING_BASE + 1000 * (compared.length + 1) + ref.n;
      if (seen === undefined) compared.push([key, stand]);
      if (ctx.asMissing === true) return stand;
    }
    return key;
  };
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isRecord(value)) return value;
    if ('$ref' in value) return pickRow(value as unknown as Ref);
    if ('$user' in value) return ctx.userId;
    if ('$after' in value) return ctx.after;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
  };
  const segments = template.path.map((segment) => String(walk(segment)));
  const params = Object.entries(template.query).map(([name, value]) => {
    const bound = walk(value);
    const text = typeof bound === 'string' ? bound : typeof bound === 'number' ? String(bound) : JSON.stringify(bound);
    return `${name}=${encodeURIComponent(text)}`;
  });
  const body = template.body === undefined ? undefined : walk(template.body);
  const url = `/api/${segments.join('')}${params.length === 0 ? '' : `?${params.join('&')}`}`;
  return { url, ...(body === undefined ? {} : { body }), compared, ...(template.source === undefined ? {} : { sourceKey: Number(segments[1]?.replace(/\/$/, '')) }) };
}

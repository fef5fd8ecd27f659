import { invalid } from './normalize-field.js';
import type { CollectionDef } from './types.js';

/** The users collection, which `createdBy` and `updatedBy` point at (the auth layer's). */
const USERS = 'users';

/** The four collection options about who wrote a row and when (NocoBase's meaning, docs/auth.md). */
export interface StampOptions {
  readonly createdAt: boolean;
  readonly updatedAt: boolean;
  readonly createdBy: boolean;
  readonly updatedBy: boolean;
}

export const STAMP_OPTION_NAMES = ['createdAt', 'updatedAt', 'createdBy', 'updatedBy'] as const;

/** The relation each `…By` option makes, with its foreign key column. */
export const STAMP_RELATIONS = {
  createdBy: { relation: 'createdBy', foreignKey: 'createdById' },
  updatedBy: { relation: 'updatedBy', foreignKey: 'updatedById' },
} as const;

/**
 * Reads the options: `createdAt`/`updatedAt` default to `timestamps` (false turns one off;
 * NocoBase's string form, a custom column name, is refused), `createdBy`/`updatedBy` to false.
 */
export function readStampOptions(input: Record<string, unknown>, timestamps: boolean): StampOptions {
  const bool = (key: (typeof STAMP_OPTION_NAMES)[number], fallback: boolean): boolean => {
    const value = input[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') throw invalid(`${key} must be true or false`, key);
    return value;
  };
  return { createdAt: bool('createdAt', timestamps), updatedAt: bool('updatedAt', timestamps), createdBy: bool('createdBy', false), updatedBy: bool('updatedBy', false) };
}

/**
 * The belongsTo relations to users that `createdBy`/`updatedBy` add (foreign keys `createdById`,
 * `updatedById`, SET NULL when the user is deleted). A relation of that name the body defines
 * itself (a schema file exported with it) is left to the body.
 */
export function stampRelationInputs(options: StampOptions, given: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const key of ['createdBy', 'updatedBy'] as const) {
    if (!options[key]) continue;
    const { relation, foreignKey } = STAMP_RELATIONS[key];
    if (given.some((input) => input.name === relation)) continue;
    out.push({ name: relation, type: 'belongsTo', target: USERS, foreignKey, onDelete: 'SET NULL' });
  }
  return out;
}

/** Marks the definition with the `…By` options it was made with (what the store stamps). */
export function markStamps(def: CollectionDef, options: StampOptions): void {
  if (options.createdBy) def.createdBy = true;
  if (options.updatedBy) def.updatedBy = true;
}

interface Stamps {
  readonly createdBy?: string;
  readonly updatedBy?: string;
  /** The key columns and the relations over them: what a client may not write. */
  readonly names: ReadonlySet<string>;
}

const stampsByDef = new WeakMap<CollectionDef, Stamps>();

/**
 * The columns the server fills on `def`: `createdById` / `updatedById` when the option is set,
 * or when the collection has that column as a foreign key to users (a belongsTo added later
 * through the fields API, as NocoBase's `createdBy` interface does). Cached per definition.
 */
function stampsOf(def: CollectionDef): Stamps {
  let stamps = stampsByDef.get(def);
  if (stamps !== undefined) return stamps;
  const columns: { createdBy?: string; updatedBy?: string } = {};
  const names = new Set<string>();
  for (const key of ['createdBy', 'updatedBy'] as const) {
    const { foreignKey } = STAMP_RELATIONS[key];
    if (def[key] !== true && !def.fields.some((field) => field.name === foreignKey && field.references?.collection === USERS)) continue;
    columns[key] = foreignKey;
    names.add(foreignKey);
    for (const relation of def.relations ?? []) if (relation.type === 'belongsTo' && relation.foreignKey === foreignKey) names.add(relation.name);
  }
  stamps = { ...columns, names };
  stampsByDef.set(def, stamps);
  return stamps;
}

/** The foreign key column the server fills for `key` on `def`, or undefined when there is none. */
export function stampColumn(def: CollectionDef, key: 'createdBy' | 'updatedBy'): string | undefined {
  return stampsOf(def)[key];
}

/** Whether `name` (a field or relation of `def`) is one the server fills: a client's value is ignored. */
export function isStampName(def: CollectionDef, name: string): boolean {
  return stampsOf(def).names.has(name);
}

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

/** The foreign key column the server fills for `key` on `def`, or undefined when the option is off. */
export function stampColumn(def: CollectionDef, key: 'createdBy' | 'updatedBy'): string | undefined {
  return def[key] === true ? STAMP_RELATIONS[key].foreignKey : undefined;
}

/** Whether `name` (a field or relation of `def`) is one the server fills: a client's value is ignored. */
export function isStampName(def: CollectionDef, name: string): boolean {
  for (const key of ['createdBy', 'updatedBy'] as const) {
    if (def[key] === true && (name === STAMP_RELATIONS[key].relation || name === STAMP_RELATIONS[key].foreignKey)) return true;
  }
  return false;
}

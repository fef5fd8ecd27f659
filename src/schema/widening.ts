import type { FieldDef } from './types.js';
import { DEFAULT_PRECISION, DEFAULT_SCALE } from './field-types/decimal-type.js';

/** Type changes that keep every value: from → the types it may become. */
const WIDER: Partial<Record<FieldDef['type'], readonly FieldDef['type'][]>> = {
  string: ['text'],
  integer: ['bigInt', 'double', 'float'],
  float: ['double'],
  double: ['float'],
};

/** Why a type change could lose values, or undefined when the new type holds every old value. */
export function typeChangeProblem(from: FieldDef['type'], to: FieldDef['type']): string | undefined {
  return from === to || WIDER[from]?.includes(to) ? undefined : `${from} cannot become ${to} without losing values`;
}

/** Does the column itself change (type, size, nullability)? */
export function columnChanges(current: FieldDef, next: FieldDef): boolean {
  return current.type !== next.type || current.length !== next.length || current.precision !== next.precision
    || current.scale !== next.scale || current.allowNull !== next.allowNull;
}

/**
 * Why a column change could lose stored values, or undefined when it cannot (a longer string,
 * string → text, integer → bigInt/double, a wider decimal, allowing NULL). Making a column
 * required is checked against the stored rows by the caller.
 */
export function wideningProblem(current: FieldDef, next: FieldDef): string | undefined {
  if (current.type !== next.type) return typeChangeProblem(current.type, next.type);
  if (next.type === 'string' && (next.length ?? 0) < (current.length ?? 0)) return `length cannot shrink from ${current.length} to ${next.length}`;
  if (next.type === 'decimal') {
    const [p1, s1] = [current.precision ?? DEFAULT_PRECISION, current.scale ?? DEFAULT_SCALE];
    const [p2, s2] = [next.precision ?? DEFAULT_PRECISION, next.scale ?? DEFAULT_SCALE];
    if (s2 < s1 || p2 - s2 < p1 - s1) return `decimal(${p1}, ${s1}) cannot become decimal(${p2}, ${s2}) without losing digits`;
  }
  return undefined;
}

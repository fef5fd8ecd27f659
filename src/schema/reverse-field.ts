import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { RelationDef } from './types.js';

/** A field name as NocoBase generates one: `f_` and 11 lowercase letters and digits. */
export function generatedFieldName(): string {
  return `f_${randomBytes(16).toString('hex').replace(/[^a-z0-9]/g, '').slice(0, 11)}`;
}

/**
 * NocoBase's `reverseField` on a new relation: the inverse relation on the target, over the
 * same key column (or through collection). `reverseField: {}` makes it with a generated
 * name; its own `name`, `type` (hasOne or hasMany against a belongsTo), UI options and
 * title are kept. Once made it is a relation of its own: dropping one keeps the other.
 */
export function reverseInput(relation: RelationDef, source: string, reverse: unknown): Record<string, unknown> {
  if (!isRecord(reverse)) throw new ApiError('SCHEMA_INVALID', `${relation.name}: reverseField must be an object`, { field: relation.name });
  const { type, key: _key, collectionName, target, ...rest } = reverse;
  const where = relation.name;
  if (collectionName !== undefined && collectionName !== relation.target) throw new ApiError('SCHEMA_INVALID', `${where}: reverseField belongs to ${relation.target}`, { field: where });
  if (target !== undefined && target !== source) throw new ApiError('SCHEMA_INVALID', `${where}: reverseField points back at ${source}`, { field: where });
  const base = { name: generatedFieldName(), ...rest, target: source, onDelete: relation.onDelete };
  const keys = (wanted: string, options: Record<string, unknown>): Record<string, unknown> => {
    if (type !== undefined && type !== wanted && !(relation.type === 'belongsTo' && (type === 'hasOne' || type === 'hasMany'))) {
      throw new ApiError('SCHEMA_INVALID', `${where}: the reverse of a ${relation.type} is a ${wanted}`, { field: where });
    }
    return { ...base, ...options, type: type ?? wanted };
  };
  switch (relation.type) {
    case 'hasOne':
    case 'hasMany':
      return keys('belongsTo', { foreignKey: relation.foreignKey, targetKey: relation.sourceKey });
    case 'belongsTo':
      return keys('hasMany', { foreignKey: relation.foreignKey, sourceKey: relation.targetKey });
    case 'belongsToMany':
      return keys('belongsToMany', { through: relation.through, foreignKey: relation.otherKey, otherKey: relation.foreignKey, sourceKey: relation.targetKey, targetKey: relation.sourceKey });
  }
}

import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { compilePattern } from './pattern.js';
import { fieldNameProblem } from './reserved-names.js';
import { FIELD_TYPES } from './field-types/index.js';
import { DEFAULT_STRING_LENGTH } from './field-types/string-type.js';
import { DEFAULT_PRECISION, DEFAULT_SCALE } from './field-types/decimal-type.js';
import { copyFieldUi, FIELD_ADDRESS_OPTIONS, FIELD_UI_OPTIONS } from './ui-options.js';
import { NAME_PATTERN, RELATION_TYPES, SCALAR_TYPES, type FieldDef, type JsonValue, type ScalarType } from './types.js';

/** Limits on definitions, each a named constant. */
export const MAX_STRING_LENGTH = 4000;
export const MAX_DECIMAL_PRECISION = 65;
export const MAX_DECIMAL_SCALE = 30;
export const MAX_ENUM_VALUES = 1000;
export const MAX_PATTERN_LENGTH = 1000;

/** Types whose words `$search` can index. */
const SEARCHABLE_TYPES: ReadonlySet<string> = new Set(['string', 'text']);

const COMMON_OPTIONS = [
  'name', 'type', 'title', 'description', 'allowNull', 'unique', 'index', 'defaultValue', 'enum', 'primaryKey', ...FIELD_UI_OPTIONS, ...FIELD_ADDRESS_OPTIONS,
] as const;

/** Options of a field of a table Corral did not create (normalize-unmanaged.ts). */
const UNMANAGED_FIELD_OPTIONS = ['columnName', 'readOnly', 'rawType', 'autoIncrement', 'defaultSql'] as const;

export const invalid = (message: string, field?: string): ApiError => new ApiError('SCHEMA_INVALID', message, field === undefined ? {} : { field });


function optionalBoolean(input: Record<string, unknown>, key: string, fallback: boolean, where: string): boolean {
  const value = input[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalid(`${where}: ${key} must be true or false`, where);
  return value;
}

function optionalInteger(input: Record<string, unknown>, key: string, min: number, max: number, where: string): number | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${where}: ${key} must be an integer from ${min} to ${max}`, where);
  }
  return value;
}

function optionalNumber(input: Record<string, unknown>, key: string, where: string): number | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${where}: ${key} must be a number`, where);
  return value;
}

/**
 * Reads one field definition from a client into a resolved FieldDef.
 * Throws SCHEMA_INVALID naming the field and the option. `unmanaged`: a column of a table
 * Corral did not create, which may name its real column, be read-only, auto-numbered or
 * filled by a database default.
 */
export function normalizeField(input: unknown, unmanaged = false): FieldDef {
  if (!isRecord(input)) throw invalid('each field must be an object with name and type');
  const name = input.name;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    throw invalid(`field name must match ${NAME_PATTERN.source}`, typeof name === 'string' ? name : undefined);
  }
  const problem = fieldNameProblem(name);
  if (problem !== undefined) throw invalid(`field name ${name} ${problem}`, name);
  const type = input.type;
  if (typeof type === 'string' && (RELATION_TYPES as readonly string[]).includes(type)) {
    throw invalid(`${name}: relation fields (${type}) are not supported yet`, name);
  }
  if (typeof type !== 'string' || !(SCALAR_TYPES as readonly string[]).includes(type)) {
    throw invalid(`${name}: type must be one of ${SCALAR_TYPES.join(', ')}`, name);
  }
  const scalar = type as ScalarType;
  const fieldType = FIELD_TYPES[scalar];
  const allowed = new Set<string>([...COMMON_OPTIONS, ...fieldType.options, ...(SEARCHABLE_TYPES.has(scalar) ? ['searchable'] : []), ...(unmanaged ? UNMANAGED_FIELD_OPTIONS : [])]);
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) throw invalid(`${name}: option ${key} does not apply to type ${scalar}`, name);
  }

  const def: FieldDef = {
    name,
    type: scalar,
    allowNull: optionalBoolean(input, 'allowNull', true, name),
    unique: optionalBoolean(input, 'unique', false, name),
    index: optionalBoolean(input, 'index', false, name),
  };
  if (optionalBoolean(input, 'searchable', false, name)) def.searchable = true;
  if (optionalBoolean(input, 'primaryKey', false, name)) {
    if (!['string', 'integer', 'bigInt', 'uuid', 'nanoid'].includes(scalar)) {
      throw invalid(`${name}: a primary key must be string, integer, bigInt, uuid or nanoid`, name);
    }
    def.primaryKey = true;
    def.allowNull = false;
  }
  for (const key of ['title', 'description'] as const) {
    if (input[key] === undefined || input[key] === null) continue;
    if (typeof input[key] !== 'string') throw invalid(`${name}: ${key} must be a string`, name);
    def[key] = input[key];
  }
  copyFieldUi(input, def, name);
  if ((def.unique || def.index) && !fieldType.indexable) {
    throw invalid(`${name}: type ${scalar} cannot be unique or indexed`, name);
  }
  if (scalar === 'string') def.length = optionalInteger(input, 'length', 1, MAX_STRING_LENGTH, name) ?? DEFAULT_STRING_LENGTH;
  if (scalar === 'decimal') {
    def.precision = optionalInteger(input, 'precision', 1, MAX_DECIMAL_PRECISION, name) ?? DEFAULT_PRECISION;
    def.scale = optionalInteger(input, 'scale', 0, Math.min(MAX_DECIMAL_SCALE, def.precision), name) ?? Math.min(DEFAULT_SCALE, def.precision);
  }
  const min = optionalNumber(input, 'min', name);
  const max = optionalNumber(input, 'max', name);
  if (min !== undefined) def.min = min;
  if (max !== undefined) def.max = max;
  if (min !== undefined && max !== undefined && min > max) throw invalid(`${name}: min is greater than max`, name);
  const minLength = optionalInteger(input, 'minLength', 0, Number.MAX_SAFE_INTEGER, name);
  const maxLength = optionalInteger(input, 'maxLength', 0, Number.MAX_SAFE_INTEGER, name);
  if (minLength !== undefined) def.minLength = minLength;
  if (maxLength !== undefined) def.maxLength = maxLength;
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    throw invalid(`${name}: minLength is greater than maxLength`, name);
  }
  if (input.pattern !== undefined && input.pattern !== null) {
    if (typeof input.pattern !== 'string' || input.pattern.length > MAX_PATTERN_LENGTH) {
      throw invalid(`${name}: pattern must be a regular expression string`, name);
    }
    try {
      compilePattern(input.pattern);
    } catch (error) {
      const reason = error instanceof Error ? `: ${error.message}` : '';
      throw invalid(`${name}: pattern is not a valid RE2 regular expression (no backreferences or lookaround)${reason}`, name);
    }
    def.pattern = input.pattern;
  }
  if (input.enum !== undefined && input.enum !== null) {
    if (!Array.isArray(input.enum) || input.enum.length === 0 || input.enum.length > MAX_ENUM_VALUES) {
      throw invalid(`${name}: enum must be a non-empty array of at most ${MAX_ENUM_VALUES} values`, name);
    }
    if (fieldType.capability === 'none') throw invalid(`${name}: type ${scalar} cannot have an enum`, name);
    def.enum = input.enum.map((value) => {
      const parsed = fieldType.parse(value, def);
      if (!parsed.ok) throw invalid(`${name}: enum value ${JSON.stringify(value)} ${parsed.message}`, name);
      return value as JsonValue;
    });
  }
  if (input.defaultValue !== undefined && input.defaultValue !== null) {
    if (scalar === 'password') throw invalid(`${name}: a password cannot have a default`, name);
    def.defaultValue = input.defaultValue as JsonValue;
  }
  if (unmanaged) readUnmanagedOptions(input, def);
  return def;
}

function readUnmanagedOptions(input: Record<string, unknown>, def: FieldDef): void {
  const { name } = def;
  if (input.columnName !== undefined && input.columnName !== null && input.columnName !== name) {
    const column = input.columnName;
    if (typeof column !== 'string' || column.length === 0 || column.length > 64 || column.trim() !== column || column.includes('.') || /\sas\s/i.test(column) || column.includes('\u0000')) {
      throw invalid(`${name}: columnName must be a name of 1 to 64 characters without '.', ' as ' or surrounding spaces`, name);
    }
    def.columnName = column;
  }
  if (optionalBoolean(input, 'readOnly', false, name)) def.readOnly = true;
  if (optionalBoolean(input, 'autoIncrement', false, name)) def.autoIncrement = true;
  for (const key of ['rawType', 'defaultSql'] as const) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > 1000) throw invalid(`${name}: ${key} must be a string`, name);
    def[key] = value;
  }
}

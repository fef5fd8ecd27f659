import { ApiError, type ErrorEntry } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Collection } from '../schema/collection.js';
import { newNanoid } from '../schema/field-types/nanoid-type.js';
import { hashPassword } from '../schema/field-types/password-type.js';
import { newUuid } from '../schema/field-types/uuid-type.js';
import type { Dialect } from '../schema/types.js';
import { isStampName } from '../schema/stamp-options.js';
import { isServerValues } from './server-values.js';

export type WriteMode = 'create' | 'update';

/** Canonical values of one write, ready for `toDb`; `sortFields` still need max + 1. */
export interface WriteValues {
  values: Map<string, unknown>;
  sortFields: string[];
  /** Association values by relation name, as sent (keys or objects); written by actions/nested-writes. */
  associations: Map<string, unknown>;
  /** The names the client wrote (fields and associations), which the caller's grant must cover; defaults and system values are not among them. */
  given: readonly string[];
  /** Bound from the server's own values (serverValues: an upload), not a client body: server-managed fields were taken. */
  server?: true;
}

/** Which names of a body a write may touch (`whitelist` / `blacklist` query parameters). */
export interface WriteFilter {
  whitelist?: readonly string[];
  blacklist?: readonly string[];
  /** Fields the caller sets itself after binding (a junction row's two key columns): never required. */
  provided?: readonly string[];
}

const isKey = (value: unknown): boolean => typeof value === 'string' || typeof value === 'number';

/** The shape check of an association value: to-one takes null, a key or an object; to-many an array of those. */
function associationProblem(toMany: boolean, value: unknown): string | undefined {
  const element = (item: unknown) => isKey(item) || isRecord(item) || (Array.isArray(item) && item.length === 2 && isKey(item[0]) && isRecord(item[1]));
  if (toMany) return Array.isArray(value) && value.every(element) ? undefined : 'must be an array of keys or objects';
  return value === null || isKey(value) || isRecord(value) ? undefined : 'must be null, a key or an object';
}


/**
 * Checks a create or update body against the collection: unknown names, types, options,
 * required fields. Every failing field is reported, one entry each.
 */
export async function bindWriteValues(collection: Collection, input: unknown, mode: WriteMode, now: Date, filter: WriteFilter = {}): Promise<WriteValues> {
  // The one rule for server-managed fields, on every write path: only the server's own values carry them.
  const server = isServerValues(input);
  const body = server ? input.values : input;
  if (!isRecord(body)) throw new ApiError('BODY_INVALID', mode === 'create' ? 'create takes an object or an array of objects' : 'update takes an object');
  const errors: ErrorEntry[] = [];
  const values = new Map<string, unknown>();
  const sortFields: string[] = [];
  const associations = new Map<string, unknown>();
  for (const [name, value] of Object.entries(body)) {
    // A server-side form narrows what a write may touch; the rest is left out on purpose.
    if (filter.whitelist !== undefined && !filter.whitelist.includes(name)) continue;
    if (filter.blacklist?.includes(name)) continue;
    const field = collection.fields.get(name);
    const relation = field === undefined ? collection.relations.get(name) : undefined;
    // Who wrote the row is the server's to say (createdBy/updatedBy options): a client's value is ignored.
    if (isStampName(collection.def, name)) continue;
    // A server-managed value from a client (an attachment's path, sha256, size, mimetype…) is ignored; a create without them is refused by the store (UPLOAD_REQUIRED).
    if (field?.serverManaged === true && !server) continue;
    if (relation !== undefined) {
      const problem = value === undefined ? undefined : relation.def.attachment?.multiple === false && Array.isArray(value) && value.length > 1 ? 'holds one file (multiple: false)' : associationProblem(relation.toMany, value);
      if (problem !== undefined) errors.push({ code: 'VALIDATION_FAILED', message: `${name} ${problem}`, field: name });
      else if (value !== undefined) associations.set(name, value);
      continue;
    }
    if (field === undefined) {
      errors.push({ code: 'VALUE_UNKNOWN_FIELD', message: `${collection.name} has no field ${name}`, field: name });
      continue;
    }
    // System fields echoed back by a client are ignored; so is the key on update.
    if (field.def.system === 'createdAt' || field.def.system === 'updatedAt') continue;
    // Generated, identity and unknown-typed columns of a table Corral did not create: the database's to fill.
    if (field.def.readOnly === true) continue;
    if (mode === 'update' && (field.def.primaryKey === true || field === collection.key)) continue;
    if (value === null || value === undefined) {
      if (!field.def.allowNull) errors.push({ code: 'VALIDATION_FAILED', message: `${name} must not be null`, field: name });
      else values.set(name, null);
      continue;
    }
    const parsed = field.validate(value);
    if (!parsed.ok) errors.push({ code: 'VALIDATION_FAILED', message: `${name} ${parsed.message}`, field: name });
    else values.set(name, field.type.name === 'password' ? await hashPassword(parsed.value as string) : parsed.value);
  }
  const given = [...values.keys(), ...associations.keys()];
  if (mode === 'create') {
    for (const field of collection.fieldList) {
      if (values.has(field.name) || errors.some((error) => error.field === field.name) || filter.provided?.includes(field.name) === true) continue;
      // Left to the server: the store refuses a client's create of an upload-only collection as a whole.
      if (field.serverManaged && !server) continue;
      const def = field.def;
      if (def.system === 'createdAt' || def.system === 'updatedAt') values.set(field.name, now);
      else if (def.autoIncrement === true || def.readOnly === true) continue;
      else if (def.defaultValue !== undefined && def.defaultValue !== null) {
        const parsed = field.validate(def.defaultValue);
        if (parsed.ok) values.set(field.name, parsed.value);
      } else if (def.type === 'uuid' && def.primaryKey === true) values.set(field.name, newUuid());
      else if (def.type === 'nanoid' && def.primaryKey === true) values.set(field.name, newNanoid());
      else if (def.type === 'sort') sortFields.push(field.name);
      else if (!def.allowNull && def.defaultSql === undefined) errors.push({ code: 'VALIDATION_FAILED', message: `${field.name} is required`, field: field.name });
    }
  } else {
    const updatedAt = collection.fieldList.find((field) => field.def.system === 'updatedAt');
    if (updatedAt !== undefined) values.set(updatedAt.name, now);
  }
  if (errors.length > 0) {
    // Unknown names are the more basic mistake: report those alone when present.
    const unknown = errors.filter((error) => error.code === 'VALUE_UNKNOWN_FIELD');
    throw ApiError.many(unknown.length > 0 ? unknown : errors);
  }
  return { values, sortFields, associations, given, ...(server ? { server: true as const } : {}) };
}

/** Canonical values to driver parameters. */
export function toDbRow(collection: Collection, values: Map<string, unknown>, dialect: Dialect): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [name, value] of values) {
    const field = collection.fields.get(name)!;
    row[name] = value === null ? null : field.type.toDb(value, dialect);
  }
  return row;
}

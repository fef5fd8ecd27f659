import type { Collection, Field, Relation } from '../schema/collection.js';
import type { Shown } from './document-view.js';
import { orNull, ref, type JsonSchema } from './json-schema.js';
import { inputValueSchema, wireValueSchema } from './value-schema.js';
import { isStampName } from '../schema/stamp-options.js';

/** Component names: a collection's row under its own name, the write bodies under `<name>.<form>`. */
export const rowSchemaName = (collection: string): string => collection;
export const createSchemaName = (collection: string): string => `${collection}.create`;
export const updateSchemaName = (collection: string): string => `${collection}.update`;
/** The key in paths and filterByTk: a separate component so clients type keys per collection. */
export const keySchemaName = (collection: string): string => `${collection}.key`;

/** The key as a client writes it: the key field's value, or its text (as it appears in a path). */
export function keySchema(collection: Collection): JsonSchema {
  const wire = wireValueSchema(collection.key.def);
  const { readOnly: _readOnly, title: _title, description: _description, ...value } = wire;
  return collection.key.def.type === 'integer' || collection.key.def.type === 'bigInt' ? { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] } : value;
}

/**
 * A row as it travels (API.md §3). No property is required: `fields` and `except` narrow any
 * row, and associations appear only when appended. Unknown properties are not allowed, so a
 * typo in a field name is caught by a typed client.
 */
export function rowSchema(collection: Collection, shown: Shown = () => true, related: (relation: Relation) => boolean = () => true): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of collection.fieldList) {
    // The key comes with every row a caller may reach, whatever the field grant lists.
    if (shown(field.name) || field === collection.key) properties[field.name] = fieldValue(field, wireValueSchema(field.def));
  }
  for (const relation of collection.relations.values()) {
    if (!shown(relation.name) || !related(relation)) continue;
    properties[relation.name] = {
      ...(relation.toMany ? { type: 'array', items: ref(rowSchemaName(relation.target.name)) } : orNull(ref(rowSchemaName(relation.target.name)))),
      description: `${relation.type} ${relation.target.name}; present only when appended (appends=${relation.name})`,
    };
  }
  const out: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (collection.def.title !== undefined) out.title = collection.def.title;
  if (collection.def.description !== undefined) out.description = collection.def.description;
  return out;
}

function fieldValue(field: Field, schema: JsonSchema): JsonSchema {
  return field.nullable ? orNull(schema) : schema;
}

/**
 * A nested association value in a write: a key links an existing row, an object creates (or
 * updates) one; `objects` names the write schemas the caller may nest (none: keys only).
 */
function relationInput(relation: Relation, objects: readonly string[]): JsonSchema {
  const forms = [ref(keySchemaName(relation.target.name)), ...objects.map(ref)];
  const element: JsonSchema = forms.length === 1 ? forms[0]! : { anyOf: forms };
  return relation.toMany
    ? { type: 'array', items: element, description: `keys to link or objects to create (${relation.type} ${relation.target.name})` }
    : { anyOf: [...forms, { type: 'null' }], description: `a key to link, an object to create, or null (${relation.type} ${relation.target.name})` };
}

/** Whether create needs the field: NOT NULL with nothing that fills it in. */
function requiredOnCreate(field: Field): boolean {
  const def = field.def;
  if (def.allowNull || def.system !== undefined || def.readOnly === true || def.defaultSql !== undefined || def.autoIncrement === true || def.type === 'sort') return false;
  if (def.defaultValue !== undefined && def.defaultValue !== null) return false;
  return !(def.primaryKey === true && (def.type === 'uuid' || def.type === 'nanoid'));
}

/**
 * create (required fields listed) or update (everything optional). System fields sent back are
 * ignored. `shown`: the fields the caller's grant lets it write; `nested(relation)`: the write
 * schemas it may nest into the relation's target, undefined to leave the relation out.
 */
export function writeSchema(
  collection: Collection,
  mode: 'create' | 'update',
  shown: Shown = () => true,
  nested: (relation: Relation) => readonly string[] | undefined = (relation) => [updateSchemaName(relation.target.name)],
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of collection.fieldList) {
    if (!shown(field.name)) continue;
    const value = inputValueSchema(field.def);
    if (field.def.system === 'createdAt' || field.def.system === 'updatedAt' || isStampName(collection.def, field.name) || (mode === 'update' && field === collection.key)) {
      properties[field.name] = { ...value, description: 'ignored: set by the server' };
      continue;
    }
    if (field.def.readOnly === true) {
      properties[field.name] = { ...value, description: 'ignored: filled by the database (generated, identity or unknown type)' };
      continue;
    }
    properties[field.name] = field.nullable ? orNull(value) : value;
    if (mode === 'create' && requiredOnCreate(field)) required.push(field.name);
  }
  for (const relation of collection.relations.values()) {
    const objects = shown(relation.name) ? nested(relation) : undefined;
    if (objects === undefined) continue;
    // createdBy/updatedBy: who wrote the row is the server's to say (the body's value is ignored).
    properties[relation.name] = isStampName(collection.def, relation.name) ? { description: 'ignored: set by the server (the signed-in user)' } : relationInput(relation, objects);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

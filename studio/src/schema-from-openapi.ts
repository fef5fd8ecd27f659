import { call, isObject } from './api';
import type { Collection, Field } from './schema';

/**
 * The collections a caller may use, read from `openapi.json` (which describes only what the
 * caller's roles let it see) for callers who may not read `collections` itself. Relations and
 * options are not in a row schema: such callers see plain columns, read-only where not granted.
 */
export async function schemaFromOpenApi(): Promise<Collection[]> {
  const document = (await call<unknown>('GET', 'openapi.json')) as unknown;
  if (!isObject(document) || !isObject(document.components) || !isObject(document.components.schemas)) return [];
  const out: Collection[] = [];
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    if (name.includes('.') || !isObject(schema) || !isObject(schema.properties)) continue;
    const fields: Field[] = [];
    for (const [field, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue;
      const types = Array.isArray(property.type) ? property.type : [property.type];
      const type = types.find((candidate) => candidate !== 'null');
      const format = property.format;
      const mapped =
        type === 'integer' ? 'integer' : type === 'number' ? 'double' : type === 'boolean' ? 'boolean'
          : type === 'string' ? (format === 'date-time' ? 'date' : format === 'date' ? 'dateOnly' : property.writeOnly === true ? 'password' : 'string')
            : 'json';
      fields.push({ name: field, type: mapped, allowNull: types.includes('null'), ...(property.readOnly === true ? { system: field } : {}) });
    }
    const key = fields.some((field) => field.name === 'id') ? 'id' : (fields[0]?.name ?? 'id');
    out.push({ name, filterTargetKey: key, fields });
  }
  return out;
}

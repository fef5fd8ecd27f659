import { ApiError } from '../errors/api-error.js';
import { titleOf } from '../export/export-columns.js';
import type { Collection, Field } from '../schema/collection.js';

/** Where each column of the file goes: a field of the collection, or nowhere (ignored). */
export type ImportColumns = readonly (Field | undefined)[];

/** `mapping`: header → field name, or null (or "") to ignore the column. */
export type ImportMapping = ReadonlyMap<string, string | null>;

/** Parses the `mapping` parameter (a JSON object of header → field name or null). */
export function parseMapping(text: string | undefined): ImportMapping | undefined {
  if (text === undefined || text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('PARAM_INVALID', 'mapping must be a JSON object of header → field name (or null to ignore the column)', { field: 'mapping' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError('PARAM_INVALID', 'mapping must be a JSON object of header → field name (or null to ignore the column)', { field: 'mapping' });
  const out = new Map<string, string | null>();
  for (const [header, name] of Object.entries(parsed)) {
    if (name !== null && typeof name !== 'string') throw new ApiError('PARAM_INVALID', `mapping: the value for ${JSON.stringify(header).slice(0, 80)} must be a field name or null`, { field: 'mapping' });
    out.set(header, name === '' ? null : name);
  }
  return out;
}

function byTitle<T extends { readonly def: { name: string; title?: string; uiSchema?: unknown } }>(items: Iterable<T>, title: string): T | undefined {
  for (const item of items) if (titleOf(item.def as Parameters<typeof titleOf>[0]) === title) return item;
  return undefined;
}

/**
 * The column of each header (docs/import-export.md#columns): `mapping` first (a field name, or
 * null to ignore), then a field by name, then by title (the export's header). A to-one
 * association column of an export (`author.name`, `Writer.Author name`) is ignored, except the
 * belongsTo's target key (`author.id`), which sets the foreign key when the file has no column
 * for it. Any other header is 400 IMPORT_FILE_INVALID: a column is never dropped unnoticed.
 */
export function importColumns(collection: Collection, headers: readonly string[], mapping: ImportMapping | undefined): ImportColumns {
  const fields = [...collection.fields.values()];
  const direct = headers.map((header): Field | undefined | 'ignore' | 'append' => {
    if (mapping?.has(header) === true) {
      const name = mapping.get(header);
      if (name === null || name === undefined) return 'ignore';
      const field = collection.fields.get(name);
      if (field === undefined) throw new ApiError('PARAM_INVALID', `mapping: ${collection.name} has no field ${name}`, { field: 'mapping', details: { header } });
      return field;
    }
    return collection.fields.get(header) ?? byTitle(fields, header) ?? 'append';
  });
  const mapped = new Set(direct.filter((column): column is Field => typeof column === 'object'));
  const columns = headers.map((header, index): Field | undefined => {
    const column = direct[index];
    if (column === 'ignore') return undefined;
    if (column !== 'append') return column;
    const foreignKey = appendColumn(collection, header);
    if (foreignKey === undefined) {
      throw new ApiError('IMPORT_FILE_INVALID', `the header ${JSON.stringify(header).slice(0, 120)} names no field of ${collection.name} (map it, or map it to null to ignore it)`, { details: { header } });
    }
    if (foreignKey === 'ignore' || mapped.has(foreignKey)) return undefined;
    mapped.add(foreignKey);
    return foreignKey;
  });
  const seen = new Set<string>();
  for (const [index, field] of columns.entries()) {
    if (field === undefined) continue;
    if (seen.has(field.name)) throw new ApiError('IMPORT_FILE_INVALID', `two columns go to the field ${field.name} (the second is ${JSON.stringify(headers[index]).slice(0, 120)})`, { details: { header: headers[index] } });
    seen.add(field.name);
  }
  return columns;
}

/**
 * An export's to-one association column: `relation.field` by names or titles. The target key
 * of a belongsTo is its foreign key; any other such column (or a nested one) is ignored.
 * Undefined: the header is no association column.
 */
function appendColumn(collection: Collection, header: string): Field | 'ignore' | undefined {
  const dot = header.indexOf('.');
  if (dot <= 0) return undefined;
  const head = header.slice(0, dot);
  const rest = header.slice(dot + 1);
  const relations = [...collection.relations.values()].filter((relation) => !relation.toMany);
  const relation = relations.find((candidate) => candidate.name === head) ?? byTitle(relations, head);
  if (relation === undefined) return undefined;
  if (relation.type !== 'belongsTo') return 'ignore';
  const key = relation.targetKey;
  const isKey = rest === key.name || rest === titleOf(key.def);
  return isKey ? relation.foreignKey : 'ignore';
}

import { ApiError } from '../errors/api-error.js';
import type { QueryParams } from '../request/query-params.js';
import type { Collection, Field } from '../schema/collection.js';
import type { ImportColumns } from './import-columns.js';

export const IMPORT_MODES = ['all', 'skip-invalid'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** The options of an import, each from the query string or else from a text part of the form. */
export interface ImportOptions {
  readonly mode: ImportMode;
  readonly format: string | undefined;
  readonly mapping: string | undefined;
  /** Field names that find the record a row updates (upsert); empty: every row is created. */
  readonly filterKeys: readonly string[];
}

/** The query parameter, else the form's text part of that name. */
function option(params: QueryParams, form: ReadonlyMap<string, string>, name: 'mode' | 'format' | 'mapping'): string | undefined {
  return params[name] ?? form.get(name);
}

export function importOptions(params: QueryParams, form: ReadonlyMap<string, string>): ImportOptions {
  const mode = option(params, form, 'mode') ?? 'all';
  if (!(IMPORT_MODES as readonly string[]).includes(mode)) throw new ApiError('PARAM_INVALID', `mode must be one of ${IMPORT_MODES.join(', ')}`, { field: 'mode' });
  const keysText = form.get('filterKeys');
  const filterKeys = params.filterKeys ?? (keysText === undefined ? [] : keysText.split(',').map((name) => name.trim()).filter((name) => name !== ''));
  return { mode: mode as ImportMode, format: option(params, form, 'format'), mapping: option(params, form, 'mapping'), filterKeys };
}

/** The fields of `filterKeys`: each a visible field of the collection that a column of the file fills. */
export function bindImportKeys(collection: Collection, names: readonly string[], columns: ImportColumns): Field[] {
  return names.map((name) => {
    const field = collection.fields.get(name);
    if (field === undefined || field.hidden) throw new ApiError('PARAM_INVALID', `filterKeys: ${collection.name} has no field ${name}`, { field: 'filterKeys' });
    if (!columns.includes(field)) throw new ApiError('PARAM_INVALID', `filterKeys: no column of the file fills ${name}`, { field: 'filterKeys' });
    return field;
  });
}

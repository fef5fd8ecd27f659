import { ApiError, type ErrorEntry } from '../errors/api-error.js';
import { cellInput } from '../import/import-cells.js';
import { importColumns, parseMapping, type ImportColumns } from '../import/import-columns.js';
import { bindImportKeys, importOptions, type ImportMode } from '../import/import-options.js';
import { csvRows, importFormat, xlsxRows, type SheetRow } from '../import/import-readers.js';
import { spoolUpload, tooLarge, type ImportLimits, type SpooledUpload } from '../import/import-upload.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { keyFilter } from '../plan/bind-keys.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import { and } from '../plan/filter-node.js';
import { UploadBody } from '../request/upload-body.js';
import type { Collection, Relation } from '../schema/collection.js';
import { isStampName } from '../schema/stamp-options.js';
import { associationFilter, type AssociationSource } from '../store/association-source.js';
import { rowKey } from '../store/canonical.js';
import { insertItems } from '../store/insert-items.js';
import { createLinked } from '../store/nested-writes.js';
import { mapConstraintError } from '../store/store.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { updateMatched } from '../store/update-rows.js';
import { IMPORT_WRITE } from '../store/write-mode.js';
import type { ActionContext, ActionResult, JobProgress } from './action-context.js';
import { loadScope } from './association-scope.js';
import { nestedOptions } from './create-action.js';
import { filterKeysLookup } from './filter-keys.js';
import { firstMatch } from './first-or-create-action.js';

/** Rows between two progress events, and between two hand-overs of the changes to the outbox. */
export const IMPORT_BATCH_ROWS = 1000;
/** Row errors an answer lists; more are counted (`skipped`, `invalid`) but not listed. */
export const MAX_REPORTED_ERRORS = 1000;

export const DEFAULT_IMPORT_LIMITS: ImportLimits = { maxBytes: 100 * 1024 * 1024, maxRows: 1_000_000 };

/** One rejected row: its spreadsheet row number (header = 1), the field, the error code. */
export interface ImportRowError {
  row: number;
  field: string | null;
  code: string;
  message: string;
}

export interface ImportSummary {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  errors: ImportRowError[];
  /** Present when more rows failed than `errors` lists (MAX_REPORTED_ERRORS). */
  invalid?: number;
}

/** Where rows go: the collection, or a to-many association of one source row (rows get its key). */
interface ImportTarget {
  readonly collection: Collection;
  readonly relation?: Relation;
}

/** Errors of one row that a client can fix (4xx); anything else ends the import. */
function rowErrors(error: unknown, collection: Collection, unit: UnitOfWork): ErrorEntry[] {
  const apiError = error instanceof ApiError ? error : mapConstraintError(error, collection, unit.dialect);
  if (apiError === undefined || apiError.status >= 500 || apiError.code === 'WRITE_CONFLICT') throw apiError ?? error;
  return apiError.entries;
}

/**
 * `<collection>:import` (and on a to-many association): a CSV or XLSX file as rows created (or,
 * with `filterKeys`, updated) through the create and update paths of the store, so every grant,
 * validation and change event applies (docs/import-export.md#import). `mode=all` writes every
 * row or none; `mode=skip-invalid` writes the valid ones and reports the others.
 */
export async function importAction(ctx: ActionContext, collection: Collection, relation?: Relation): Promise<ActionResult> {
  const body = ctx.request.body;
  if (!(body instanceof UploadBody)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'an import takes a multipart/form-data body with the file in a part named "file"');
  // Rows that carry grants (roles, users, keys, scopes) are refused by the store before the file is read.
  ctx.store.refuseBulk(collection);
  if (relation !== undefined && !relation.toMany) throw new ApiError('BODY_INVALID', `${relation.name} holds one record: import into a collection or a to-many association`);
  const limits = ctx.imports ?? DEFAULT_IMPORT_LIMITS;
  const upload = await spoolUpload(body, limits);
  let rows: AsyncGenerator<SheetRow> | undefined;
  try {
    const options = importOptions(ctx.request.params, upload.fields);
    const mapping = parseMapping(options.mapping);
    const format = importFormat(options.format, upload.head, upload.filename, upload.mimetype);
    rows = format === 'csv' ? csvRows(upload.path) : xlsxRows(upload.path);
    const header = await rows.next();
    if (header.done === true) throw new ApiError('IMPORT_FILE_INVALID', 'the file is empty: the first row must name the columns');
    const headers = header.value.cells.map((cell) => (cell === null ? '' : typeof cell === 'object' && !(cell instanceof Date) ? '' : String(cell).trim()));
    const columns = importColumns(collection, headers, mapping);
    const keys = bindImportKeys(collection, options.filterKeys, columns).map((field) => field.name);
    const source = rows;
    return {
      kind: 'job',
      run: async (progress) => {
        try {
          return { kind: 'item', item: await runImport(ctx, { collection, ...(relation === undefined ? {} : { relation }) }, columns, keys, options.mode, source, limits, upload.bytes, progress) };
        } finally {
          await finish(source, upload);
        }
      },
    };
  } catch (error) {
    await finish(rows, upload);
    throw error;
  }
}

async function finish(rows: AsyncGenerator<SheetRow> | undefined, upload: SpooledUpload): Promise<void> {
  await rows?.return(undefined).catch(() => undefined);
  await upload.remove();
}

/** The names a row writes that the caller's grants must cover (what bindWriteValues keeps of them). */
function writtenNames(collection: Collection, columns: ImportColumns): string[] {
  const names = new Set<string>();
  for (const field of columns) {
    if (field === undefined || field.def.system === 'createdAt' || field.def.system === 'updatedAt' || isStampName(collection.def, field.name)) continue;
    names.add(field.name);
  }
  return [...names];
}

async function runImport(
  ctx: ActionContext,
  target: ImportTarget,
  columns: ImportColumns,
  keys: readonly string[],
  mode: ImportMode,
  rows: AsyncGenerator<SheetRow>,
  limits: ImportLimits,
  /** The file's size, which a progress event gives with the bytes read (CSV). */
  bytes: number,
  progress: (state: JobProgress) => void,
): Promise<ImportSummary> {
  const { collection, relation } = target;
  const now = new Date();
  const options = nestedOptions(ctx.request.params, now);
  const keyShape = bindReadShape(collection, [collection.key.name], undefined, undefined);
  const summary: ImportSummary = { total: 0, created: 0, updated: 0, skipped: 0, errors: [] };
  let invalid = 0;
  let started = false;
  await ctx.store.write(ctx, collection, async (unit) => {
    // The rows are read once: a write the store would run again (a deadlock) cannot be.
    if (started) throw new ApiError('WRITE_CONFLICT', 'the import met a concurrent write; send it again');
    started = true;
    // The grants of the whole file first: a role that may not create (or update, to upsert) these fields is 403 before any row.
    const names = writtenNames(collection, columns);
    unit.checkWritten(collection, 'create', names);
    if (keys.length > 0) unit.checkWritten(collection, 'update', names.filter((name) => name !== collection.key.name));
    const source: AssociationSource | undefined = relation === undefined ? undefined : await loadScope(ctx, relation, unit, relation.type === 'belongsToMany' ? 'update' : 'view');
    const insert = async (values: Awaited<ReturnType<typeof bindWriteValues>>): Promise<void> => {
      if (source === undefined) await insertItems(unit, collection, [values]);
      else await createLinked(unit, source, [values], options);
    };
    const writeRow = async (input: Record<string, unknown>): Promise<'created' | 'updated'> => {
      if (keys.length > 0) {
        const lookup = filterKeysLookup(collection, { ...ctx.request.params, filterKeys: [...keys] }, input);
        const where = source === undefined ? lookup : and([lookup, associationFilter(source.relation, source.anchor)]);
        const existing = await firstMatch(unit, collection, keyShape, where);
        if (existing !== undefined) {
          const update = await bindWriteValues(collection, input, 'update', now);
          const byKey = keyFilter(collection, [rowKey(collection, existing, unit.dialect)]);
          const [updated] = await updateMatched(unit, collection, update, byKey, options);
          // Visible but outside the caller's update scope: refused, never created twice.
          if (updated === undefined) throw new ApiError('FORBIDDEN', `your roles do not allow updating the ${collection.name} record this row matches`);
          return 'updated';
        }
      }
      await insert(await bindWriteValues(collection, input, 'create', now));
      return 'created';
    };
    // mode=all: after the first rejected row nothing more is written (the transaction will roll
    // back, and PostgreSQL takes no statement after a failed one); later rows are still checked.
    let writing = true;
    let bytesRead: number | undefined;
    for await (const { row, cells, bytesRead: read } of rows) {
      bytesRead = read;
      summary.total += 1;
      if (summary.total > limits.maxRows) throw tooLarge(limits.maxRows, 'CORRAL_IMPORT_MAX_ROWS', 'rows');
      const problems: ErrorEntry[] = [];
      const input: Record<string, unknown> = {};
      for (const [index, field] of columns.entries()) {
        if (field === undefined) continue;
        const cell = cellInput(field, cells[index] ?? null);
        if (cell.ok) input[field.name] = cell.value;
        else problems.push({ code: 'VALIDATION_FAILED', message: `${field.name} ${cell.message}`, field: field.name });
      }
      if (problems.length === 0) {
        try {
          if (!writing) await bindWriteValues(collection, input, 'create', now);
          else summary[mode === 'skip-invalid' ? await ctx.store.isolated(unit, collection, () => writeRow(input)) : await writeRow(input)] += 1;
        } catch (error) {
          problems.push(...rowErrors(error, collection, unit));
          if (mode === 'all') writing = false;
        }
      }
      if (problems.length > 0) {
        invalid += 1;
        if (mode === 'skip-invalid') summary.skipped += 1;
        for (const problem of problems) {
          if (summary.errors.length < MAX_REPORTED_ERRORS) summary.errors.push({ row, field: problem.field ?? null, code: problem.code, message: problem.message });
        }
      }
      if (summary.total % IMPORT_BATCH_ROWS === 0) {
        if (writing) await ctx.store.flushChanges(unit, collection);
        progress(bytesRead === undefined ? { processed: summary.total } : { processed: summary.total, bytesRead, bytes });
      }
    }
    if (mode === 'all' && invalid > 0) {
      throw new ApiError('IMPORT_INVALID', `${invalid} of ${summary.total} rows are not valid; nothing was imported`, {
        details: { total: summary.total, invalid, errors: summary.errors },
      });
    }
  }, IMPORT_WRITE);
  if (invalid > summary.errors.length) summary.invalid = invalid;
  return summary;
}

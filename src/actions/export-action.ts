import { ApiError } from '../errors/api-error.js';
import { exportColumns, toManyAppend } from '../export/export-columns.js';
import { csvStream, EXPORT_CONTENT_TYPES, EXPORT_FORMATS, xlsxStream, type ExportFormat } from '../export/export-writers.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindSearch } from '../plan/bind-filter.js';
import { bindSort } from '../plan/bind-sort.js';
import { and, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { openItemBatches, selectedFields } from '../store/read-rows.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

function formatOf(text: string | undefined): ExportFormat {
  const format = text ?? 'csv';
  if ((EXPORT_FORMATS as readonly string[]).includes(format)) return format as ExportFormat;
  throw new ApiError('PARAM_INVALID', `format must be one of ${EXPORT_FORMATS.join(', ')}`, { field: 'format' });
}

/**
 * `<collection>:export?format=csv|xlsx`: every row a `paginate=false` list would answer (the
 * same filter, q, sort, fields, except and appends, read through the store under the caller's
 * view scopes and field grants), as a spreadsheet written while it is read (docs/import-export.md).
 * To-one appends become columns (`author.name`); a to-many append is refused.
 */
export async function exportAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { params } = ctx.request;
  const format = formatOf(params.format);
  const target = bindTarget(ctx.request, collection, scope);
  const where = params.q === undefined ? target.where : and([target.where, bindSearch(collection, params.q)]);
  const shape = bindReadShape(collection, params.fields, params.except, params.appends);
  const toMany = toManyAppend(shape.appends);
  if (toMany !== undefined) throw new ApiError('PARAM_INVALID', `an export has one row per record: ${toMany} holds many records (append to-one associations only)`, { field: 'appends' });
  const order = bindSort(collection, params.sort);
  const unit = ctx.store.read(ctx);
  const source = await openItemBatches(unit, () => ctx.store.readSnapshot(ctx), { collection, where, select: selectedFields(shape), order }, shape);
  const columns = exportColumns(source.shape);
  const zone = params.timeZone;
  const stream = format === 'csv' ? csvStream(columns, source, zone) : xlsxStream(columns, source, zone, collection.name);
  return { kind: 'file', stream, contentType: EXPORT_CONTENT_TYPES[format], filename: `${collection.name}.${format}` };
}

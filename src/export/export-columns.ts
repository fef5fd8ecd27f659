import type { AppendNode, ReadShape } from '../plan/bind-read-shape.js';
import type { Field } from '../schema/collection.js';
import type { JsonValue } from '../schema/types.js';
import { isRecord } from '../is-record.js';

/** One column of an export: its header, the field it shows, and where the value sits in an item. */
export interface ExportColumn {
  /** `name`, or `author.name` for a field of a to-one association. */
  readonly path: string;
  /** The field's title (`title`, else `uiSchema.title`), else its name; association titles joined with dots. */
  readonly title: string;
  readonly field: Field;
  readonly value: (item: Record<string, unknown>) => unknown;
}

/** A field's or relation's title as the studio shows it: its `title` option, else `uiSchema.title`, else the name. */
export function titleOf(def: { name: string; title?: string; uiSchema?: JsonValue }): string {
  if (typeof def.title === 'string' && def.title !== '') return def.title;
  const ui = def.uiSchema;
  if (isRecord(ui) && typeof ui.title === 'string' && ui.title !== '') return ui.title;
  return def.name;
}

/**
 * The columns of a (granted) read shape: every output field, then the fields of each to-one
 * append as `relation.field` (nested to-one appends as `a.b.field`). To-many appends have no
 * place in a row of cells: the caller refuses them before (`toManyAppend`).
 */
export function exportColumns(shape: ReadShape): ExportColumn[] {
  const columns: ExportColumn[] = shape.output.map((field) => ({ path: field.name, title: titleOf(field.def), field, value: (item) => item[field.name] }));
  const visit = (nodes: readonly AppendNode[], path: string[], titles: string[], reach: (item: Record<string, unknown>) => Record<string, unknown> | undefined): void => {
    for (const node of nodes) {
      const name = node.relation.name;
      const inner = (item: Record<string, unknown>): Record<string, unknown> | undefined => {
        const parent = reach(item);
        const value = parent === undefined ? undefined : parent[name];
        return isRecord(value) ? value : undefined;
      };
      const names = [...path, name];
      const heads = [...titles, titleOf(node.relation.def)];
      for (const field of node.output) {
        columns.push({ path: [...names, field.name].join('.'), title: [...heads, titleOf(field.def)].join('.'), field, value: (item) => inner(item)?.[field.name] });
      }
      visit(node.children, names, heads, inner);
    }
  };
  visit(shape.appends, [], [], (item) => item);
  return columns;
}

/** The first to-many association among the appends (dot path), which an export cannot lay out as columns. */
export function toManyAppend(nodes: readonly AppendNode[], path: readonly string[] = []): string | undefined {
  for (const node of nodes) {
    const names = [...path, node.relation.name];
    if (node.relation.toMany) return names.join('.');
    const inner = toManyAppend(node.children, names);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

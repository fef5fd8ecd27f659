import { ApiError } from '../errors/api-error.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import { reuseDecoder } from '../schema/row-decoder.js';

/** An association to embed in each item, with what to return of it and what to embed in it. */
export interface AppendNode {
  relation: Relation;
  /** Fields of the target returned in each embedded item. */
  output: Field[];
  children: AppendNode[];
}

/** What a read returns: the fields of each item and the associations embedded in it. */
export interface ReadShape {
  output: Field[];
  appends: AppendNode[];
}

interface PathTree {
  fields: string[];
  except: string[];
  appends: Map<string, PathTree>;
}

const emptyTree = (): PathTree => ({ fields: [], except: [], appends: new Map() });

function place(tree: PathTree, path: string, kind: 'fields' | 'except' | 'appends'): void {
  const parts = path.split('.');
  let node = tree;
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    if (last && kind !== 'appends') {
      node[kind].push(part);
      return;
    }
    let child = node.appends.get(part);
    if (child === undefined) {
      child = emptyTree();
      node.appends.set(part, child);
    }
    node = child;
  }
}

function bindLevel(collection: Collection, tree: PathTree, path: string): ReadShape {
  const resolve = (name: string): Field | undefined => {
    const field = collection.fields.get(name);
    return field === undefined || field.hidden ? undefined : field;
  };
  const picked: Field[] = [];
  for (const name of tree.fields) {
    const field = resolve(name);
    if (field !== undefined) picked.push(field);
    else if (collection.relations.has(name)) {
      // `fields=comments` asks for the whole association.
      if (!tree.appends.has(name)) tree.appends.set(name, emptyTree());
    } else throw new ApiError('FIELDS_UNKNOWN', `${collection.name} has no readable field ${path}${name}`, { field: `${path}${name}` });
  }
  let output = picked.length > 0 ? [...new Set(picked)] : [...collection.visible];
  if (tree.except.length > 0) {
    const drop = new Set(
      tree.except.map((name) => {
        const field = resolve(name);
        if (field === undefined) throw new ApiError('FIELDS_UNKNOWN', `${collection.name} has no readable field ${path}${name}`, { field: `${path}${name}` });
        return field;
      }),
    );
    output = output.filter((field) => !drop.has(field));
    // Nothing left to select would be an empty SELECT list: refuse it as the mistake it is.
    if (output.length === 0 && tree.appends.size === 0) throw new ApiError('PARAM_INVALID', `except removes every field of ${collection.name}${path === '' ? '' : ` at ${path.slice(0, -1)}`}: nothing is left to return`, { field: 'except' });
  }
  const appends: AppendNode[] = [];
  for (const [name, child] of tree.appends) {
    const relation = collection.relations.get(name);
    if (relation === undefined) throw new ApiError('APPENDS_UNKNOWN', `${collection.name} has no association ${path}${name}`, { field: `${path}${name}` });
    const shape = bindLevel(relation.target, child, `${path}${name}.`);
    appends.push({ relation, output: shape.output, children: shape.appends });
  }
  return { output, appends };
}

export const MAX_APPEND_DEPTH = 4;

/** The shape of a read without fields, except or appends (most reads), once per compiled collection. */
const wholeShapes = new WeakMap<Collection, ReadShape>();

function wholeShape(collection: Collection): ReadShape {
  let shape = wholeShapes.get(collection);
  if (shape === undefined) {
    const output = Object.freeze([...collection.visible]) as Field[];
    // Every read of the collection without fields, except or appends decodes with this list.
    reuseDecoder(output);
    shape = Object.freeze({ output, appends: Object.freeze([]) as unknown as AppendNode[] });
    wholeShapes.set(collection, shape);
  }
  return shape;
}

/**
 * Binds `fields`, `except` and `appends` together: dot paths select inside embedded
 * associations (`comments.body`), and an association named in `fields` is embedded too.
 */
export function bindReadShape(collection: Collection, fields: string[] = [], except: string[] = [], appends: string[] = []): ReadShape {
  if (fields.length === 0 && except.length === 0 && appends.length === 0) return wholeShape(collection);
  const tree = emptyTree();
  for (const path of appends) {
    if (path.split('.').length > MAX_APPEND_DEPTH) throw new ApiError('APPENDS_UNKNOWN', `appends nest at most ${MAX_APPEND_DEPTH} levels`, { field: path });
    place(tree, path, 'appends');
  }
  for (const [kind, paths] of [['fields', fields], ['except', except]] as const) {
    for (const path of paths) {
      if (path.split('.').length > MAX_APPEND_DEPTH + 1) throw new ApiError('APPENDS_UNKNOWN', `${kind} nests at most ${MAX_APPEND_DEPTH} associations`, { field: path });
      place(tree, path, kind);
    }
  }
  return bindLevel(collection, tree, '');
}

/** Columns a query must read besides the output: the ones appends link by. */
export function linkColumns(shape: { appends: AppendNode[] }): Field[] {
  return shape.appends.map(({ relation }) => relation.sourceColumn);
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies between the folders of src/ point one way (docs/architecture.md#layers): a
 * circle such as store → changes → store means neither can be read, tested or replaced alone.
 * Type-only imports count too: they tie the folders' vocabularies together all the same.
 */
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** A file's folder under src/; a file at the top (app.ts, main.ts, is-record.ts …) is its own unit. */
function unitOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/g;

/** unit → the units it imports, each with the first file that does (for the message). */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(SRC)) {
    const from = unitOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = unitOf(resolve(dirname(file), match[1]!));
      if (to !== from && !edges.has(to)) edges.set(to, relative(SRC, file));
    }
  }
  return graph;
}

/** The strongly connected groups of more than one unit (Tarjan). */
function circles(graph: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (unit: string): void => {
    index.set(unit, next);
    low.set(unit, next);
    next += 1;
    stack.push(unit);
    onStack.add(unit);
    for (const target of graph.get(unit)?.keys() ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(unit, Math.min(low.get(unit)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(unit, Math.min(low.get(unit)!, index.get(target)!));
    }
    if (low.get(unit) === index.get(unit)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== unit);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const unit of graph.keys()) if (!index.has(unit)) visit(unit);
  return found;
}

describe('imports between the folders of src/', () => {
  it('form no circle', () => {
    const graph = folderGraph();
    const described = circles(graph).map((group) =>
      group
        .flatMap((from) => group.filter((to) => graph.get(from)?.has(to)).map((to) => `${from} → ${to} (${graph.get(from)!.get(to)})`))
        .join(', '),
    );
    expect(described).toEqual([]);
  });

  it('finds a circle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a', new Map([['b', 'a/x.ts']])],
      ['b', new Map([['c', 'b/y.ts']])],
      ['c', new Map([['a', 'c/z.ts']])],
      ['d', new Map([['a', 'd/w.ts']])],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c']]);
  });
});

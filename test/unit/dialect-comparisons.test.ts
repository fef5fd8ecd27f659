import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Dialect decisions live in the adapters under src/db/dialects/ (src/db/ opens the
 * connections and may know which database it is). Everywhere else asks the adapter, so a
 * comparison of dialect names outside src/db/ fails here, with its lines printed.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/**
 * Paths (a file, or a folder ending in `/`) allowed to name dialects, each with its reason.
 * The test prints the entries that no longer compare anything, so they can go.
 */
const NOT_YET_CONVERTED: Readonly<Record<string, string>> = {};

const excepted = (file: string): boolean =>
  Object.keys(NOT_YET_CONVERTED).some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path));

/** `dialect === 'x'`, `'x' !== dialect`, `.dialect !== …`, `case 'x':`, `switch (…dialect…)`. */
const COMPARISON = [
  /\bdialect(Name)?\s*[!=]==?/,
  /[!=]==?\s*'(sqlite|postgres|mysql)'/,
  /'(sqlite|postgres|mysql)'\s*[!=]==?/,
  /\bcase\s+'(sqlite|postgres|mysql)'\s*:/,
  /\bswitch\s*\([^)]*dialect[^)]*\)/i,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Offending lines per file outside src/db/ (comment lines are skipped: they may name a database). */
function comparisons(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const path of sourceFiles(SRC)) {
    const file = relative(ROOT, path).split('\\').join('/');
    if (file.startsWith('src/db/')) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    const hits = lines.flatMap((line, i) => {
      const code = line.trim();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return [];
      return COMPARISON.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${code}`] : [];
    });
    if (hits.length > 0) found.set(file, hits);
  }
  return found;
}

describe('dialect comparisons', () => {
  const found = comparisons();

  it('finds no dialect name compared outside src/db/ but in the listed paths', () => {
    const offending = [...found].filter(([file]) => !excepted(file)).flatMap(([, hits]) => hits);
    if (offending.length > 0) console.log(`ask the dialect adapter (src/db/dialects/) instead:\n${offending.join('\n')}`);
    expect(offending).toEqual([]);
  });

  it('lists only paths that exist, and names the ones that no longer compare', () => {
    const missing = Object.keys(NOT_YET_CONVERTED).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing, 'renamed or removed: update NOT_YET_CONVERTED').toEqual([]);
    const done = Object.keys(NOT_YET_CONVERTED).filter((path) => ![...found.keys()].some((file) => (path.endsWith('/') ? file.startsWith(path) : file === path)));
    if (done.length > 0) console.log(`no dialect comparison left in (remove from NOT_YET_CONVERTED): ${done.join(', ')}`);
  });

  it('catches the forms a comparison takes', () => {
    const caught = (line: string) => COMPARISON.some((pattern) => pattern.test(line));
    expect(caught("if (dialect === 'mysql') return;")).toBe(true);
    expect(caught("if (this.database.dialect !== 'postgres') return;")).toBe(true);
    expect(caught("const x = 'sqlite' === d ? 1 : 2;")).toBe(true);
    expect(caught("const x = d == 'sqlite';")).toBe(true);
    expect(caught("    case 'postgres': {")).toBe(true);
    expect(caught('  switch (config.database.dialect) {')).toBe(true);
    expect(caught('const ops = pass.adapter.operators;')).toBe(false);
    expect(caught("const DIALECTS = ['sqlite', 'postgres', 'mysql'];")).toBe(false);
  });
});

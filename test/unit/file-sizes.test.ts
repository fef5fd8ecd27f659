import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** A file holds one concept (docs/architecture.md): past this many lines, split it along a real seam. */
const MAX_LINES = 350;

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('source files', () => {
  it(`stay within ${MAX_LINES} lines each`, () => {
    const long = sourceFiles(SRC)
      .map((path) => ({ file: relative(SRC, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });
});

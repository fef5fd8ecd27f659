import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedBlock, useDocServer } from '../support/doc-script.js';
import { DIALECTS } from '../support/test-database.js';

/** The lines the block shows as `# …` after its last export command: what it prints. */
function shownOutput(script: string): string[] {
  return script.split('\n').filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
}

// Run as written against a server with the README walkthrough's variables (B, J, A); one dialect.
describe(`docs/import-export.md's example runs as written (${DIALECTS[0]})`, () => {
  const server = useDocServer();
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'corral-export-doc-'));
  });

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('exports the CSV the page shows and an XLSX file', async () => {
    const script = markedBlock('import-export.md', 'export');
    const stdout = await server.runScript(script, dir);
    expect(stdout.replace(/^\uFEFF/, '').split('\r\n').join('\n')).toBe(`${shownOutput(script).join('\n')}\n`);
    expect(statSync(join(dir, 'books.xlsx')).size).toBeGreaterThan(1000);
  });

  // After the export block: it imports into the books that block created.
  it('imports as the page shows: all-or-nothing, skip-invalid, an upsert with progress events', async () => {
    const script = markedBlock('import-export.md', 'import');
    const stdout = await server.runScript(script, dir);
    expect(stdout.replaceAll('\uFEFF', '').split('\r\n').join('\n')).toBe(`${shownOutput(script).join('\n')}\n`);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedBlock, useDocServer } from '../support/doc-script.js';
import { DIALECTS } from '../support/test-database.js';

/** The lines the block shows as `# …`: what it prints. */
function shownOutput(script: string): string[] {
  return script.split('\n').filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
}

// Run as written against a server with the README walkthrough's variables (B, J, A); one dialect.
describe(`docs/files.md's example runs as written (${DIALECTS[0]})`, () => {
  const server = useDocServer();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'corral-files-doc-'));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('uploads, links, appends, downloads a range and refuses a lying type as the page shows', async () => {
    const script = markedBlock('files.md', 'files');
    const stdout = await server.runScript(script, dir);
    expect(stdout).toBe(`${shownOutput(script).join('\n')}\n`);
  });
});

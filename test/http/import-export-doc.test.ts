import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { ROOT } from '../process/support.js';
import { apiFor, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

const run = promisify(execFile);

/** The shell block a page marks with `<!-- run: <name> -->`. */
function markedBlock(page: string, name: string): string {
  const match = new RegExp(`<!-- run: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n`).exec(page);
  if (match === null) throw new Error(`no block marked run: ${name}`);
  return match[1]!;
}

/** The lines the block shows as `# …` after its last export command: what it prints. */
function shownOutput(script: string): string[] {
  return script.split('\n').filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
}

// Run as written against a server with the README walkthrough's variables (B, J, A); one dialect.
describe(`docs/import-export.md's example runs as written (${DIALECTS[0]})`, () => {
  let database: TestDatabase;
  let built: BuiltApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    built = await buildApp(testConfig(database));
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}/api`;
    dir = mkdtempSync(join(tmpdir(), 'corral-export-doc-'));
  });

  afterAll(async () => {
    await built?.close();
    await database?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('exports the CSV the page shows and an XLSX file', async () => {
    const script = markedBlock(readFileSync(join(ROOT, 'docs', 'import-export.md'), 'utf8'), 'export');
    const env = { ...process.env, B: base, J: 'content-type: application/json', A: `authorization: ${(await apiFor(built).authHeaders()).authorization!}` };
    const { stdout } = await run('bash', ['-c', `set -eu\n${script}`], { env, cwd: dir, timeout: 30_000 });
    expect(stdout.replace(/^\uFEFF/, '').split('\r\n').join('\n')).toBe(`${shownOutput(script).join('\n')}\n`);
    expect(statSync(join(dir, 'books.xlsx')).size).toBeGreaterThan(1000);
  });
});

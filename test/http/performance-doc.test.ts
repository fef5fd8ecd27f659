import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
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

/** Every JSON answer in curl's output (each printed without a newline after it). */
function answers(output: string): { data?: Record<string, unknown>; errors?: unknown }[] {
  return output.replaceAll('}{', '}\n{').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as { data?: Record<string, unknown> });
}

// Run as written against a server with the README walkthrough's variables (B, J, A); one dialect.
describe(`docs/performance.md's index example runs as written (${DIALECTS[0]})`, () => {
  let database: TestDatabase;
  let built: BuiltApp;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    built = await buildApp(testConfig(database));
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}/api`;
  });

  afterAll(async () => {
    await built?.close();
    await database?.drop();
  });

  it('creates the collection with its index, replaces the indexes, lists with the filter', async () => {
    const script = markedBlock(readFileSync(join(ROOT, 'docs', 'performance.md'), 'utf8'), 'indexes');
    const env = { ...process.env, B: base, J: 'content-type: application/json', A: `authorization: ${(await apiFor(built).authHeaders()).authorization!}` };
    const { stdout } = await run('bash', ['-c', `set -eu\n${script}`], { env, timeout: 30_000 });
    const [created, replaced, listed] = answers(stdout);
    expect(created!.errors).toBeUndefined();
    expect(created!.data!.indexes).toEqual([{ name: 'idx_articles_status_views', fields: ['status', 'views'], unique: false }]);
    expect(replaced!.data!.indexes).toEqual([
      { name: 'idx_articles_status_views', fields: ['status', 'views'], unique: false },
      { name: 'articles_by_views', fields: ['views'], unique: false },
    ]);
    expect(listed).toEqual({ data: [], meta: expect.objectContaining({ count: 0 }) });
  });
});

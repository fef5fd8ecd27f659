import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { ROOT } from '../process/support.js';
import { defineBlog } from '../support/blog-schema.js';
import { apiFor, TEST_ROOT, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/**
 * The client examples of docs/clients.md are the folders under examples/: this runs each as
 * the page says (npm scripts, environment settings) against a real server, and checks that
 * the code the page shows is the code of those files.
 */

const run = promisify(execFile);
const EXAMPLES = join(ROOT, 'examples');

/** The fenced blocks of a markdown page that follow a `<!-- file: path -->` line, by path. */
function shownFiles(page: string): Map<string, string> {
  const shown = new Map<string, string>();
  for (const match of page.matchAll(/<!-- file: (\S+) -->\n```[a-z]*\n([\s\S]*?)```\n/g)) shown.set(match[1]!, match[2]!);
  return shown;
}

describe('docs/clients.md shows the example files as they are', () => {
  it('each block marked with a file is that file, and every example file with code is shown', () => {
    const shown = shownFiles(readFileSync(join(ROOT, 'docs', 'clients.md'), 'utf8'));
    expect([...shown.keys()].sort()).toEqual(['examples/nocobase-sdk/client.mjs', 'examples/nocobase-sdk/load-sdk.mjs', 'examples/typed-client/client.ts']);
    for (const [path, text] of shown) expect(text, path).toBe(readFileSync(join(ROOT, path), 'utf8'));
  });
});

// The clients do not depend on the database: one dialect is enough.
describe(`the client examples against a running server (${DIALECTS[0]})`, () => {
  let database: TestDatabase;
  let built: BuiltApp;
  let base: string;
  let dir: string;
  /** What the pages tell the reader to set. */
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    built = await buildApp(testConfig(database));
    await defineBlog(apiFor(built));
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    // Inside the project, so the examples resolve their packages from its node_modules
    // (a reader's `npm install` in the folder installs the same ones).
    const cache = join(ROOT, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, 'corral-examples-'));
    cpSync(EXAMPLES, dir, { recursive: true });
    env = {
      ...process.env,
      CORRAL_URL: base,
      CORRAL_ACCOUNT: TEST_ROOT.email,
      CORRAL_PASSWORD: TEST_ROOT.password,
      PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    };
  });

  afterAll(async () => {
    await built?.close();
    await database?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const npm = (folder: string, script: string) => run('npm', ['run', '--silent', script], { cwd: join(dir, folder), env });

  it('typed-client: npm run generate, build and start; a field-name typo fails to compile', async () => {
    await npm('typed-client', 'generate');
    expect(readFileSync(join(dir, 'typed-client', 'corral.ts'), 'utf8')).toContain('"/api/posts:list"');
    await npm('typed-client', 'build');
    const { stdout } = await npm('typed-client', 'start');
    expect(JSON.parse(stdout)).toEqual({ id: 1, author: 'Ada', titles: ['Hello'], code: 'RECORD_NOT_FOUND' });

    const client = join(dir, 'typed-client', 'client.ts');
    writeFileSync(client, readFileSync(client, 'utf8').replace('row.title', 'row.titel'));
    const typo = await npm('typed-client', 'build').then(
      () => '',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(typo).toMatch(/client\.ts\(\d+,\d+\): error TS\d+: Property 'titel' does not exist/);
  }, 240_000);

  it('nocobase-sdk: npm start signs in, creates, lists and reads the schema through the SDK', async () => {
    const { stdout } = await npm('nocobase-sdk', 'start');
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ titles: ['Hello, SDK'], count: 1 });
    expect(typeof result.version).toBe('string');
    expect(result.stringFields).toContain('title');
  }, 60_000);
});

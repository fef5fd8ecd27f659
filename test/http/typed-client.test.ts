import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { ROOT } from '../process/support.js';
import { defineBlog } from '../support/blog-schema.js';
import { apiFor, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

const run = promisify(execFile);
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The client docs/clients.md shows, against the blog schema. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './corral.js';

type Post = components['schemas']['posts'];

const client = createClient<paths>({ baseUrl: process.argv[2] });

const created = await client.POST('/api/posts:create', { body: { title: 'typed', author: { name: 'Ada' } }, params: { query: { appends: ['author'] } } });
if (created.error) throw new Error(created.error.errors[0]!.message);
const post: Post = created.data.data as Post;

const listed = await client.GET('/api/posts:list', { params: { query: { filter: JSON.stringify({ title: 'typed' }), appends: ['author'], pageSize: 5 } } });
if (listed.error) throw new Error(listed.error.errors[0]!.message);
const titles = listed.data.data.map((row) => row.title);

const missing = await client.GET('/api/posts:get', { params: { query: { filterByTk: 999 } } });
const code = missing.error?.errors[0]?.code;

console.log(JSON.stringify({ id: post.id, author: post.author?.name, titles, status: missing.response.status, code }));
`;

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true, types: ['node'], lib: ['ES2023', 'DOM'] },
  files: ['client.ts'],
};

async function typeCheck(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { cwd: dir });
    return { ok: true, output: '' };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${stdout}${stderr}` };
  }
}

// Generated types do not depend on the database: one dialect is enough.
describe(`a typed client generated from a running server (${DIALECTS[0]})`, () => {
  let database: TestDatabase;
  let built: BuiltApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    built = await buildApp(testConfig(database));
    await defineBlog(apiFor(built));
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    // Inside the project, so the client resolves openapi-fetch from its node_modules.
    const cache = join(ROOT, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, 'corral-typed-client-'));
  });

  afterAll(async () => {
    await built?.close();
    await database?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('generates types with openapi-typescript, compiles a client, and a field-name typo fails to compile', async () => {
    await run(process.execPath, [OPENAPI_TYPESCRIPT, `${base}/api/openapi.json`, '--output', join(dir, 'corral.ts')], { cwd: dir });
    expect(readFileSync(join(dir, 'corral.ts'), 'utf8')).toContain('"/api/posts:list"');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(dir, 'client.ts'), CLIENT);

    const good = await typeCheck(dir);
    expect(good.output).toBe('');
    expect(good.ok).toBe(true);
    // It also runs: the compiled client against the server.
    const { stdout } = await run(process.execPath, [join(dir, 'client.js'), base]);
    expect(JSON.parse(stdout)).toEqual({ id: 1, author: 'Ada', titles: ['typed'], status: 404, code: 'RECORD_NOT_FOUND' });

    writeFileSync(join(dir, 'client.ts'), CLIENT.replace('row.title', 'row.titel'));
    const typo = await typeCheck(dir);
    expect(typo.ok).toBe(false);
    expect(typo.output).toMatch(/client\.ts\(\d+,\d+\): error TS\d+: Property 'titel' does not exist/);
  }, 120_000);
});

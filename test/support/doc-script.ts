import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { ROOT } from '../process/support.js';
import { apiFor, testConfig } from './test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './test-database.js';

const run = promisify(execFile);

/** The shell block a docs page marks with `<!-- run: <name> -->`. */
export function markedBlock(page: string, name: string): string {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  const match = new RegExp(`<!-- run: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n`).exec(text);
  if (match === null) throw new Error(`no block marked run: ${name} in docs/${page}`);
  return match[1]!;
}

/**
 * A listening server (the first test dialect) for docs snippets, and a runner of a snippet as
 * written with the README walkthrough's variables (B: the API base, J: the JSON header, A:
 * root's authorization header) under `bash -eu`.
 */
export function useDocServer(): { readonly built: BuiltApp; runScript(script: string, cwd?: string): Promise<string> } {
  let database: TestDatabase | undefined;
  let built: BuiltApp | undefined;
  let base = '';
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
  return {
    get built() {
      if (built === undefined) throw new Error('the docs server is not started yet');
      return built;
    },
    async runScript(script, cwd) {
      const app = this.built;
      const env = { ...process.env, B: base, J: 'content-type: application/json', A: `authorization: ${(await apiFor(app).authHeaders()).authorization!}` };
      const { stdout } = await run('bash', ['-c', `set -eu\n${script}`], { env, timeout: 30_000, ...(cwd === undefined ? {} : { cwd }) });
      return stdout;
    },
  };
}

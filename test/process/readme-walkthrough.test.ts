import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, ROOT, startCorral } from './support.js';

const run = promisify(execFile);

/** The shell blocks of one README section, in order. */
function shellBlocks(readme: string, from: string, to: string): string[] {
  const section = readme.slice(readme.indexOf(from), readme.indexOf(to));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** Every error code an output or the README's comments name. */
const codes = (text: string): Set<string> => new Set([...text.matchAll(/"code":"([A-Z_]+)"/g)].map((match) => match[1]!));

afterAll(killAll);

// The walkthrough runs on the in-memory SQLite database it names: one dialect.
describe('the README walkthrough, pasted in order', () => {
  it('works as written: signed in as root, the relations part after a restart, roles and API keys', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const [start, ...first] = shellBlocks(readme, '## Walkthrough', '## Relations walkthrough');
    const second = shellBlocks(readme, '## Relations walkthrough', '## Service endpoints');
    // The start line names the settings; the server is started here, on a free port.
    const settings = Object.fromEntries([...start!.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
    expect(settings).toMatchObject({ DATABASE_URL: 'sqlite::memory:', CORRAL_ROOT_EMAIL: 'root@example.com' });
    const documentedPort = settings.PORT!;
    const env = { DATABASE_URL: settings.DATABASE_URL!, CORRAL_ROOT_EMAIL: settings.CORRAL_ROOT_EMAIL!, CORRAL_ROOT_PASSWORD: settings.CORRAL_ROOT_PASSWORD! };

    const outputs: string[] = [];
    // `B` and `J` carry over from the first part to the second (restarted: on its own port here).
    for (const [index, part] of [first, second].entries()) {
      const proc = await startCorral({ env });
      const carried = index === 0 ? '' : `B=http://127.0.0.1:${documentedPort}/api\nJ='content-type: application/json'\n`;
      const script = `set -u\n${carried}${part.join('\n')}`.replaceAll(`:${documentedPort}`, `:${proc.port}`);
      const { stdout } = await run('bash', ['-c', script], { cwd: ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
      outputs.push(stdout);
      expect((await proc.stop()).code).toBe(0);
    }
    const all = outputs.join('\n');
    // Only the refusals the README shows happen (a missing token would add AUTH_REQUIRED).
    const shown = codes(readme.slice(readme.indexOf('## Walkthrough'), readme.indexOf('## Service endpoints')));
    expect([...codes(all)].filter((code) => !shown.has(code))).toEqual([]);
    expect(all).not.toContain('AUTH_REQUIRED');
    expect(all).not.toContain('AUTH_INVALID_TOKEN');
    expect(all).toContain('"email":"root@example.com"');
    expect(all).toMatch(/"token":"eyJ/);
    expect(all).toContain('your roles do not allow create on posts');
  }, 120_000);
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS, settingsHelp, settingsTable } from '../../src/config/settings.js';

/** One table in the code (src/config/settings.ts) is the source of the README's and of `corral help`. */
describe('the settings table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it("is the README's configuration table, row for row", () => {
    const section = readme.split('## Configuration\n')[1]!;
    const table = section.split('\n\n').map((block) => block.trim()).find((block) => block.startsWith('| env var |'));
    expect(table).toBe(settingsTable());
  });

  it('gives every setting a line of `corral help`, once', () => {
    const help = settingsHelp();
    for (const setting of SETTINGS) {
      const own = new RegExp(`^  (--[a-z]+ +)?${setting.env} +\\S`);
      expect(help.split('\n').filter((line) => own.test(line)), setting.env).toHaveLength(1);
    }
  });
});

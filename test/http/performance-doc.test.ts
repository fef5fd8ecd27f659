import { describe, expect, it } from 'vitest';
import { markedBlock, useDocServer } from '../support/doc-script.js';
import { DIALECTS } from '../support/test-database.js';

/** Every JSON answer in curl's output (each printed without a newline after it). */
function answers(output: string): { data?: Record<string, unknown>; errors?: unknown }[] {
  return output.replaceAll('}{', '}\n{').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as { data?: Record<string, unknown> });
}

// Run as written against a server with the README walkthrough's variables (B, J, A); one dialect.
describe(`docs/performance.md's index example runs as written (${DIALECTS[0]})`, () => {
  const server = useDocServer();

  it('creates the collection with its index, replaces the indexes, lists with the filter', async () => {
    const stdout = await server.runScript(markedBlock('performance.md', 'indexes'));
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

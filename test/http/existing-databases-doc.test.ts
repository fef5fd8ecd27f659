import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { markedBlock, useDocServer } from '../support/doc-script.js';
import { DIALECTS } from '../support/test-database.js';

/** The lines the block shows as `# …` after a command: what it prints (the first `# after, …` line says what ran before). */
function shownOutput(script: string): string[] {
  return script.split('\n').filter((line) => line.startsWith('# ') && !line.startsWith('# after')).map((line) => line.slice(2));
}

// Run as written against a server with the README walkthrough's variables (B, J, A); one dialect.
describe(`docs/existing-databases.md's sync example runs as written (${DIALECTS[0]})`, () => {
  const server = useDocServer();

  it('reports the table made by plain SQL and serves it with its column names mapped', async () => {
    const script = markedBlock('existing-databases.md', 'sync');
    const statement = /^# after, by plain SQL: (.*)$/m.exec(script)?.[1];
    expect(statement).toBeDefined();
    await sql.raw(DIALECTS[0] === 'mysql' ? statement!.replaceAll('"', '`') : statement!).execute(server.built.database.db);
    const stdout = await server.runScript(script);
    expect(stdout.trim().split('\n')).toEqual(shownOutput(script));
  });
});

// The composite-key example, on a server of its own (its sync adds only its table).
describe(`docs/existing-databases.md's composite-key example runs as written (${DIALECTS[0]})`, () => {
  const server = useDocServer();

  it('serves a table with a composite primary key by filterByTk[…]', async () => {
    const script = markedBlock('existing-databases.md', 'composite-key');
    const statement = /^# after, by plain SQL: (.*)$/m.exec(script)?.[1];
    expect(statement).toBeDefined();
    await sql.raw(DIALECTS[0] === 'mysql' ? statement!.replaceAll('"', '`') : statement!).execute(server.built.database.db);
    const stdout = await server.runScript(script);
    expect(stdout.trim().split('\n')).toEqual(shownOutput(script));
  });
});

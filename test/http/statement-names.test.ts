import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

/**
 * On PostgreSQL a cached query shape runs as a named prepared statement: the connection
 * parses it once. Requests run one after another reuse the pool's most recent client, so the
 * check reads that client's prepared statements.
 */
describe.runIf(DIALECTS.includes('postgres'))('named statements on postgres', () => {
  const ctx = useDialectApp('postgres');

  it('runs a repeated list as one named prepared statement, with custom plans', async () => {
    await ctx.api.collection({ name: 'notes', fields: [{ name: 'title', type: 'string' }] });
    for (const title of ['a', 'b']) expect((await ctx.api.post('/api/notes:create', { title })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await ctx.api.get('/api/notes:list?filter[title]=a')).body.data).toHaveLength(1);
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(ctx.built.database.db);
    const lists = rows.filter((row) => row.statement.startsWith('select') && row.statement.includes('"notes"."title" = $1'));
    expect(lists).toHaveLength(1);
    const { rows: mode } = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(ctx.built.database.db);
    expect(mode[0]!.plan_cache_mode).toBe('force_custom_plan');
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import type { Dialect } from '../../src/schema/types.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/**
 * Introspected columns of types Corral does not model (docs/existing-databases.md#types): a value
 * the column's type cannot take, or an operator, sort or grouping the type has not, is the
 * client's mistake, 400 with the field named, never a 500 from the database. PostgreSQL cases
 * run on postgres, MariaDB cases on mysql; each is skipped elsewhere.
 */

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

const FIXTURE: Partial<Record<Dialect, string[]>> = {
  postgres: [
    `create table oddity (id integer primary key, ip inet, net cidr, mac macaddr, cash money, xmlc xml, ts timestamp, tstz timestamptz, span interval, bits varbit(8), vec tsvector, zone timetz, lsn pg_lsn)`,
    `insert into oddity values (1, '192.168.1.10', '10.0.0.0/8', '08:00:2b:01:02:03', 12.50, '<a>x</a>', '2026-01-02 10:00:00', '2026-01-02 10:00:00+00', '1 day', B'101', 'a fat cat', '10:00:00+02', '0/16B3748')`,
    `insert into oddity values (2, '10.0.0.7', '192.168.0.0/16', '08:00:2b:01:02:04', 3.25, '<b/>', '2026-03-04 00:00:00', '2026-03-04 00:00:00+00', '2 hours', B'11', 'dog', '11:00:00+00', null)`,
    `create table netkeyed (ip inet primary key, note text)`,
    `insert into netkeyed values ('10.1.1.1', 'a')`,
  ],
  mysql: [
    'create table oddity (id integer primary key, span time(6), short time, flags set(\'a\',\'b\'))',
    `insert into oddity values (1, '838:59:59', '-838:59:59', 'a,b'), (2, '-12:30:00.250000', '01:02:03', 'b')`,
  ],
};

/** A GET path, or a POST path with its JSON body. */
type Case = [title: string, request: string | [string, Record<string, unknown>], status: number, expected: unknown];

/** [title, request path, status, the body's data (200) or the first error's {code, field} (400)]. */
const CASES: Partial<Record<Dialect, Case[]>> = {
  postgres: [
    ['inet compared with a value that is no address', `/api/oddity:list?filter=${q({ ip: { $gt: 'x' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'ip' }],
    ['inet equal to a value that is no address', `/api/oddity:list?filter=${q({ ip: 'x' })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'ip' }],
    ['inet in a list with a bad member', `/api/oddity:list?filter=${q({ ip: { $in: ['10.0.0.7', 'nope'] } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'ip' }],
    ['inet compared with an address', `/api/oddity:list?filter=${q({ ip: { $gt: '10.0.0.8' } })}&fields=id`, 200, [{ id: 1 }]],
    ['inet equal to an address', `/api/oddity:list?filter=${q({ ip: '10.0.0.7' })}&fields=id`, 200, [{ id: 2 }]],
    ['cidr with a bad value', `/api/oddity:list?filter=${q({ net: { $ne: '10.0.0.0/99' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'net' }],
    ['macaddr with a bad value', `/api/oddity:list?filter=${q({ mac: 'zz' })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'mac' }],
    ['money compared with a word', `/api/oddity:list?filter=${q({ cash: { $lt: 'abc' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'cash' }],
    ['money compared with an amount', `/api/oddity:list?filter=${q({ cash: { $lt: '10' } })}&fields=id`, 200, [{ id: 2 }]],
    ['xml equal to a value (xml has no equality)', `/api/oddity:list?filter=${q({ xmlc: 'x' })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'xmlc' }],
    ['xml with $includes (on its text)', `/api/oddity:list?filter=${q({ xmlc: { $includes: '<a>' } })}&fields=id`, 200, [{ id: 1 }]],
    ['xml null test still works', `/api/oddity:list?filter=${q({ xmlc: { $notEmpty: true } })}&fields=id&sort=id`, 200, [{ id: 1 }, { id: 2 }]],
    ['sort by xml (no ordering)', '/api/oddity:list?sort=xmlc', 400, { code: 'SORT_UNKNOWN_FIELD', field: 'xmlc' }],
    ['query grouped by xml', ['/api/oddity:query', { dimensions: [{ field: 'xmlc' }], measures: [{ aggregation: 'count', alias: 'n' }] }], 400, { code: 'FIELDS_UNKNOWN', field: 'xmlc' }],
    ['query grouped by inet', ['/api/oddity:query', { dimensions: [{ field: 'ip' }], measures: [{ aggregation: 'count', alias: 'n' }], sort: ['ip'] }], 200, [{ ip: '10.0.0.7', n: 1 }, { ip: '192.168.1.10', n: 1 }]],
    ['query filtered by a bad money value', ['/api/oddity:query', { measures: [{ aggregation: 'count', alias: 'n' }], filter: { cash: { $gte: 'lots' } } }], 400, { code: 'FILTER_OPERATOR_TYPE', field: 'cash' }],
    ['timestamp equal to a word', `/api/oddity:list?filter=${q({ ts: { $eq: 'x' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'ts' }],
    ['timestamptz after a word', `/api/oddity:list?filter=${q({ tstz: { $gt: 'soon' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'tstz' }],
    ['timestamp after an instant', `/api/oddity:list?filter=${q({ ts: { $gt: '2026-02-01T00:00:00Z' } })}&fields=id`, 200, [{ id: 2 }]],
    ['interval with a bad value', `/api/oddity:list?filter=${q({ span: { $gt: 'forever' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'span' }],
    ['varbit with a bad value', `/api/oddity:list?filter=${q({ bits: '2' })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'bits' }],
    ['timetz with a bad value', `/api/oddity:list?filter=${q({ zone: { $lt: 'noon' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'zone' }],
    ['count with a bad inet value', `/api/oddity:count?filter=${q({ ip: { $lte: '300.1.1.1' } })}`, 400, { code: 'FILTER_OPERATOR_TYPE', field: 'ip' }],
    ['a type without a rule: a value its input function refuses is still 400', `/api/oddity:list?filter=${q({ lsn: 'x' })}`, 400, { code: 'VALIDATION_FAILED', field: undefined }],
    ['a get by a bad key of a native type', '/api/netkeyed:get?filterByTk=nope', 400, { code: 'KEY_INVALID', field: 'ip' }],
    ['values read back as the database writes them', '/api/oddity:list?fields=id,ip,net,cash,span,bits,zone&sort=id', 200, [
      { id: 1, ip: '192.168.1.10', net: '10.0.0.0/8', cash: '$12.50', span: '1 day', bits: '101', zone: '10:00:00+02' },
      { id: 2, ip: '10.0.0.7', net: '192.168.0.0/16', cash: '$3.25', span: '02:00:00', bits: '11', zone: '11:00:00+00' },
    ]],
    ['an interval filtered by the text it reads back', `/api/oddity:list?filter=${q({ span: '02:00:00' })}&fields=id`, 200, [{ id: 2 }]],
  ],
  mysql: [
    ['time(6) at the top of its range reads back exactly', '/api/oddity:list?fields=id,span,short&sort=id', 200, [{ id: 1, span: '838:59:59', short: '-838:59:59' }, { id: 2, span: '-12:30:00.25', short: '01:02:03' }]],
    ['time(6) filters by the value it reads back', `/api/oddity:list?filter=${q({ span: '838:59:59' })}&fields=id`, 200, [{ id: 1 }]],
  ],
};

interface Served {
  api: TestApi;
  built: BuiltApp;
  database: TestDatabase;
}

describe.each(DIALECTS)('introspected types on %s', (dialect) => {
  const fixture = FIXTURE[dialect];
  const cases = CASES[dialect] ?? [];
  const state = {} as Served;
  beforeAll(async () => {
    if (fixture === undefined) return;
    state.database = await createTestDatabase(dialect);
    const loader = await openDatabase(state.database.config);
    try {
      for (const statement of fixture) await sql.raw(statement).execute(loader.db);
    } finally {
      await loader.close();
    }
    state.built = await buildApp(testConfig(state.database, { introspect: { include: [], exclude: [] } }));
    state.api = apiFor(state.built);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.database?.drop();
  });

  it.skipIf(fixture === undefined).each(cases.length > 0 ? cases : [['none', '', 0, null] as Case])('%s', async (_title, request, status, expected) => {
    const response = typeof request === 'string' ? await state.api.get(request) : await state.api.post(request[0], request[1]);
    expect(response.status, response.text).toBe(status);
    if (status === 200) expect(response.body.data).toEqual(expected);
    else expect({ code: response.body.errors[0].code, field: response.body.errors[0].field }).toEqual(expected);
  });
});

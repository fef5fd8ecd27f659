import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { FAILURES_TABLE } from '../../src/store/system/auth-tables.js';
import { ACCOUNT_FAILURES, ADDRESS_FAILURES, FAILURE_WINDOW_MS, PRUNE_FAILURES_EVERY_MS } from '../../src/auth/rate-limiter.js';
import { TEST_ROOT, testConfig, useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Failed sign-ins count per account (the user, whatever spelling) and per client address, in
 * a table every process shares. Each test signs in from addresses of its own (inject's
 * remoteAddress), so one test's failures never count in another's.
 */

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
}

/** The apps' shared clock: tests move it forward instead of sleeping. */
let now = Date.parse('2030-01-01T00:00:00Z');
const clock = () => now;

async function signIn(app: BuiltApp, account: string, password: string, from: { remote?: string; forwardedFor?: string } = {}): Promise<Answer> {
  const reply = await app.app.inject({
    method: 'POST',
    url: '/api/auth:signIn',
    payload: JSON.stringify({ account, password }),
    headers: { 'content-type': 'application/json', ...(from.forwardedFor === undefined ? {} : { 'x-forwarded-for': from.forwardedFor }) },
    remoteAddress: from.remote ?? '127.0.0.1',
  });
  const body = JSON.parse(reply.body) as { errors?: { code: string }[] };
  const retryAfter = reply.headers['retry-after'];
  return { status: reply.statusCode, code: body.errors?.[0]?.code, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
}

for (const dialect of DIALECTS) {
  describe(`sign-in limits on ${dialect}`, () => {
    // This app believes X-Forwarded-For from 127.0.0.1 (inject's default peer): a proxy on the same host.
    const ctx = useDialectApp(dialect, { trustedProxies: ['127.0.0.1', '10.9.0.0/16'] }, { clock });
    /** A second process on the same database, believing no proxy. */
    let other: BuiltApp;
    const users: Record<string, number> = {};

    beforeAll(async () => {
      for (const name of ['spelled', 'spread', 'shared', 'raced', 'aged', 'cleared']) {
        const created = await ctx.api.post('/api/users:create', { email: `${name}@corral.test`, username: name, password: `${name}-password` });
        expect(created.status, created.text).toBe(201);
        users[name] = created.body.data.id as number;
      }
      other = await buildApp(testConfig(ctx.database), { clock });
    });

    afterAll(async () => {
      await other?.close();
    });

    it('failed sign-ins count per account whatever spelling', async () => {
      const from = { remote: '192.0.2.1' };
      const spellings = ['spelled@corral.test', 'spelled'];
      for (let i = 0; i < ACCOUNT_FAILURES; i++) expect((await signIn(ctx.built, spellings[i % 2]!, `wrong ${i}`, from)).code).toBe('AUTH_BAD_CREDENTIALS');
      for (const account of spellings) {
        const limited = await signIn(ctx.built, account, 'spelled-password', from);
        expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
        expect(Number(limited.retryAfter)).toBeGreaterThan(0);
      }
      // From another address too: the limit is the account's.
      expect((await signIn(ctx.built, 'spelled', 'spelled-password', { remote: '192.0.2.2' })).status).toBe(429);
    });

    it('failed sign-ins are counted across workers', async () => {
      const from = { remote: '192.0.2.10' };
      for (let i = 0; i < ACCOUNT_FAILURES; i++) {
        const node = i % 2 === 0 ? ctx.built : other;
        expect((await signIn(node, 'spread', `wrong ${i}`, from)).code).toBe('AUTH_BAD_CREDENTIALS');
      }
      for (const node of [ctx.built, other]) expect((await signIn(node, 'spread', 'spread-password', from)).code).toBe('RATE_LIMITED');
    });

    it('concurrent guesses do not get past the account limit', async () => {
      const answers = await Promise.all(Array.from({ length: 3 * ACCOUNT_FAILURES }, (_, i) => signIn(i % 2 === 0 ? ctx.built : other, 'raced', `wrong ${i}`, { remote: '192.0.2.20' })));
      expect(answers.every((answer) => answer.code === 'AUTH_BAD_CREDENTIALS' || answer.code === 'RATE_LIMITED')).toBe(true);
      // Each attempt is recorded before it is checked, so a burst may be refused more than needed, never less:
      // over the burst and the guesses after it, exactly ACCOUNT_FAILURES wrong passwords are tried.
      let checked = answers.filter((answer) => answer.code === 'AUTH_BAD_CREDENTIALS').length;
      expect(checked).toBeLessThanOrEqual(ACCOUNT_FAILURES);
      for (let i = 0; i <= ACCOUNT_FAILURES; i++) {
        const answer = await signIn(ctx.built, 'raced', `wrong again ${i}`, { remote: '192.0.2.21' });
        if (answer.code === 'RATE_LIMITED') break;
        checked++;
      }
      expect(checked).toBe(ACCOUNT_FAILURES);
      expect((await signIn(ctx.built, 'raced', 'raced-password', { remote: '192.0.2.21' })).code).toBe('RATE_LIMITED');
    });

    it('X-Forwarded-For is believed only from CORRAL_TRUSTED_PROXIES', async () => {
      const guess = (app: BuiltApp, i: number, from: { remote?: string; forwardedFor?: string }) => signIn(app, `nobody${i}@corral.test`, 'x', from);
      // Behind the trusted proxy, each client has its own count: the right-most address the proxy did not add.
      for (let i = 0; i < ADDRESS_FAILURES; i++) expect((await guess(ctx.built, i, { forwardedFor: '203.0.113.7' })).status).toBe(401);
      expect((await guess(ctx.built, 100, { forwardedFor: '203.0.113.7' })).status).toBe(429);
      // A client cannot shed its count by sending an X-Forwarded-For of its own: the proxy appends the real one.
      expect((await guess(ctx.built, 101, { forwardedFor: '198.51.100.5, 203.0.113.7' })).status).toBe(429);
      // Through a chain of trusted proxies the client is the right-most untrusted address.
      expect((await guess(ctx.built, 102, { remote: '10.9.0.2', forwardedFor: '203.0.113.7, 10.9.0.1' })).status).toBe(429);
      expect((await guess(ctx.built, 103, { forwardedFor: '203.0.113.8' })).status).toBe(401);
      // From a peer that is not a listed proxy, the header is ignored: the peer is the client.
      for (let i = 0; i < ADDRESS_FAILURES; i++) expect((await guess(ctx.built, 200 + i, { remote: '192.0.2.30', forwardedFor: `203.0.113.${100 + i}` })).status).toBe(401);
      expect((await guess(ctx.built, 300, { remote: '192.0.2.30', forwardedFor: '203.0.113.99' })).status).toBe(429);
      // A process that lists no proxy believes no header: every client behind 192.0.2.40 is one.
      for (let i = 0; i < ADDRESS_FAILURES; i++) expect((await guess(other, 400 + i, { remote: '192.0.2.40', forwardedFor: `203.0.113.${150 + i}` })).status).toBe(401);
      expect((await guess(other, 500, { remote: '192.0.2.40', forwardedFor: '203.0.113.200' })).status).toBe(429);
    });

    it('a correct password for an account without failures is not refused because of others\' failures from the same address', async () => {
      const from = { remote: '192.0.2.50' };
      for (let i = 0; i < ADDRESS_FAILURES; i++) expect((await signIn(ctx.built, `stranger${i}@corral.test`, 'x', from)).status).toBe(401);
      // Unknown accounts are refused from that address now ...
      expect((await signIn(ctx.built, 'stranger-more@corral.test', 'x', from)).code).toBe('RATE_LIMITED');
      // ... and so is an account with failures of its own ...
      expect((await signIn(ctx.built, 'shared', 'wrong', { remote: '192.0.2.51' })).status).toBe(401);
      expect((await signIn(ctx.built, 'shared', 'shared-password', from)).code).toBe('RATE_LIMITED');
      // ... but not accounts without failures, root above all.
      expect((await signIn(ctx.built, TEST_ROOT.email, TEST_ROOT.password, from)).status).toBe(200);
      expect((await signIn(other, 'root', TEST_ROOT.password, from)).status).toBe(200);
    });

    it('a success clears the account\'s failures', async () => {
      const from = { remote: '192.0.2.60' };
      for (let i = 0; i < ACCOUNT_FAILURES - 1; i++) expect((await signIn(ctx.built, 'cleared', `wrong ${i}`, from)).status).toBe(401);
      expect((await signIn(other, 'cleared@corral.test', 'cleared-password', from)).status).toBe(200);
      for (let i = 0; i < ACCOUNT_FAILURES - 1; i++) expect((await signIn(ctx.built, 'cleared', `wrong again ${i}`, from)).status).toBe(401);
      expect((await signIn(ctx.built, 'cleared', 'cleared-password', from)).status).toBe(200);
    });

    it('failures leave the window after 15 minutes, and their rows are pruned', async () => {
      const from = { remote: '192.0.2.70' };
      for (let i = 0; i < ACCOUNT_FAILURES; i++) expect((await signIn(ctx.built, 'aged', `wrong ${i}`, from)).status).toBe(401);
      const limited = await signIn(ctx.built, 'aged', 'aged-password', from);
      expect(limited.code).toBe('RATE_LIMITED');
      expect(Number(limited.retryAfter)).toBeLessThanOrEqual(FAILURE_WINDOW_MS / 1000);
      const rows = () => ctx.built.database.db.selectFrom(FAILURES_TABLE).select('id').execute();
      expect((await rows()).length).toBeGreaterThan(0);
      now += Math.max(FAILURE_WINDOW_MS, PRUNE_FAILURES_EVERY_MS) + 1000;
      // A guess after the window is this node's first since: it prunes every older row.
      expect((await signIn(ctx.built, 'nobody-at-all@corral.test', 'x', { remote: '192.0.2.71' })).status).toBe(401);
      expect((await rows()).length).toBe(1);
      expect((await signIn(ctx.built, 'aged', 'aged-password', from)).status).toBe(200);
    });
  });
}

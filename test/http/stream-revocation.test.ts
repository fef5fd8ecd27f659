import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';
import { openSse, type SseClient } from '../support/sse-client.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Revocation reaches event streams (docs/events.md#revocation): a password change, a disabled
 * or deleted user, a role taken from the user, a deleted role and a revoked grant refuse the
 * stream tickets issued before (with the documented code) and end the streams open before,
 * ticket or header, with `event: revoked` (STREAM_REVOKED) and nothing after it; a ticket
 * issued after the change (once the user may read again) opens a stream that delivers. The same
 * for a stream opened with an API key (its token in the header, or a ticket asked with it): a
 * destroyed key, its role taken from its creator or a disabled creator end it; a password change
 * leaves it open, as it leaves the key.
 */

/** How long a test waits for something the server sends (a bound, never a sleep). */
const WAIT_MS = 10_000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One user of one case: its id, role and password. */
interface Subject {
  readonly id: number;
  readonly role: string;
  readonly email: string;
  password: string;
}

interface RevocationCase {
  readonly name: string;
  /** Takes the access away (as root). */
  readonly revoke: (root: TestApi, subject: Subject) => Promise<void>;
  /** What a ticket issued before answers afterwards. */
  readonly ticketAnswer: readonly [number, string];
  /** Gives access back (as root) so that a new sign-in and ticket may open the stream; none: the user is gone. */
  readonly restore?: (root: TestApi, subject: Subject) => Promise<void>;
}

async function ok(reply: Promise<{ status: number; text: string }>, status = 200): Promise<void> {
  const answer = await reply;
  expect(answer.status, answer.text).toBe(status);
}

const GRANT = (role: string) => ({ name: role, strategy: { actions: [] }, resources: [{ name: 'notes', actions: [{ name: 'view', fields: ['id', 'text'] }] }] });

const CASES: readonly RevocationCase[] = [
  {
    name: 'password change',
    revoke: async (root, subject) => {
      await ok(root.post(`/api/users:update/${subject.id}`, { password: 'a-changed-password' }));
      subject.password = 'a-changed-password';
    },
    ticketAnswer: [401, 'STREAM_TICKET_REVOKED'],
    restore: async () => undefined,
  },
  {
    name: 'user disabled',
    revoke: (root, subject) => ok(root.post(`/api/users:update/${subject.id}`, { disabled: true })),
    ticketAnswer: [401, 'STREAM_TICKET_REVOKED'],
    restore: (root, subject) => ok(root.post(`/api/users:update/${subject.id}`, { disabled: false })),
  },
  {
    name: 'user deleted',
    revoke: (root, subject) => ok(root.post(`/api/users:destroy/${subject.id}`)),
    ticketAnswer: [401, 'STREAM_TICKET_REVOKED'],
  },
  {
    name: 'role removed from the user',
    revoke: (root, subject) => ok(root.post(`/api/users:update/${subject.id}`, { roles: [] })),
    ticketAnswer: [401, 'STREAM_TICKET_REVOKED'],
    restore: (root, subject) => ok(root.post(`/api/users:update/${subject.id}`, { roles: [subject.role] })),
  },
  {
    name: 'role deleted',
    revoke: (root, subject) => ok(root.post(`/api/roles:destroy/${subject.role}`)),
    ticketAnswer: [403, 'FORBIDDEN'],
    restore: (root, subject) => ok(root.post('/api/roles:create', GRANT(subject.role)), 201),
  },
  {
    name: 'grant on the collection revoked',
    revoke: (root, subject) => ok(root.post(`/api/roles:update/${subject.role}`, { resources: [] })),
    ticketAnswer: [403, 'FORBIDDEN'],
    restore: (root, subject) => ok(root.post(`/api/roles:update/${subject.role}`, { resources: GRANT(subject.role).resources })),
  },
];

/** One API key of a subject: its id and token. */
interface Key {
  readonly id: number;
  readonly token: string;
}

interface KeyCase {
  readonly name: string;
  readonly revoke: (root: TestApi, subject: Subject, key: Key) => Promise<void>;
}

const KEY_CASES: readonly KeyCase[] = [
  { name: 'API key destroyed', revoke: (root, _subject, key) => ok(root.post(`/api/apiKeys:destroy/${key.id}`)) },
  { name: "API key's role taken from its creator", revoke: (root, subject) => ok(root.post(`/api/users:update/${subject.id}`, { roles: [KEY_MAKER] })) },
  { name: "API key's creator disabled", revoke: (root, subject) => ok(root.post(`/api/users:update/${subject.id}`, { disabled: true })) },
];

/** A role that may make API keys (given to every subject besides its own role). */
const KEY_MAKER = 'keyMaker';

for (const dialect of DIALECTS) {
  describe(`stream revocation on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    let base: string;
    const open: SseClient[] = [];
    let made = 0;

    const signIn = (subject: Subject) => apiFor(ctx.built, { account: subject.email, password: subject.password });
    const ticketOf = async (api: TestApi): Promise<string> => {
      const reply = await api.request('POST', '/api/notes:subscribe');
      expect(reply.status, reply.text).toBe(200);
      return encodeURIComponent(reply.body.data.ticket as string);
    };
    const stream = (url: string, headers: Record<string, string> = {}, agent?: Agent): SseClient => {
      const client = openSse(`${base}${url}`, headers, agent);
      open.push(client);
      return client;
    };
    const bare = async (ticket: string): Promise<[number, string]> => {
      const reply = await ctx.built.app.inject({ method: 'GET', url: `/api/notes:subscribe?ticket=${ticket}` });
      return [reply.statusCode, reply.json().errors?.[0]?.code];
    };
    const note = async (text: string): Promise<number> => {
      const created = await ctx.api.post('/api/notes:create', { text });
      expect(created.status, created.text).toBe(201);
      return created.body.data.id as number;
    };
    /** A stream is live once it delivered a note created after it opened. */
    const live = async (client: SseClient, text: string): Promise<void> => {
      expect(await within(client.status, 'answer')).toBe(200);
      const id = await note(text);
      await within(waitUntil(client, (events) => events.some((event) => event.data.key === id)), `event of note ${id}`);
    };

    beforeAll(async () => {
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
      await ok(ctx.api.post('/api/roles:create', { name: KEY_MAKER, strategy: { actions: [] }, resources: [{ name: 'apiKeys', actions: [{ name: 'create' }] }] }), 201);
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      for (const client of open) client.close();
    });

    const subjectFor = async (label: string): Promise<Subject> => {
      made += 1;
      const role = `viewer${made}`;
      await ok(ctx.api.post('/api/roles:create', GRANT(role)), 201);
      const email = `${label.replace(/\W+/g, '-')}-${made}@corral.test`;
      const created = await ctx.api.post('/api/users:create', { email, password: 'the-first-password', roles: [role, KEY_MAKER] });
      expect(created.status, created.text).toBe(201);
      return { id: created.body.data.id as number, role, email, password: 'the-first-password' };
    };

    for (const revocation of CASES) {
      it(`${revocation.name}: a ticket issued before is refused (${revocation.ticketAnswer.join(' ')}), open streams end with event: revoked`, async () => {
        const subject = await subjectFor(revocation.name);
        const user = signIn(subject);
        const unused = await ticketOf(user);
        const byTicket = stream(`/api/notes:subscribe?ticket=${await ticketOf(user)}`);
        const byHeader = stream('/api/notes:subscribe', await user.authHeaders());
        await live(byTicket, 'before');
        await live(byHeader, 'before too');

        await revocation.revoke(ctx.api, subject);
        const after = await note('after the revocation');

        for (const client of [byTicket, byHeader]) {
          await within(client.ended, 'end of the stream');
          const last = client.events[client.events.length - 1]!;
          expect(last.event).toBe('revoked');
          expect(last.data.errors[0].code).toBe('STREAM_REVOKED');
          expect(typeof last.data.errors[0].message).toBe('string');
          expect(client.events.some((event) => event.data.key === after)).toBe(false);
        }
        expect(await bare(unused)).toEqual(revocation.ticketAnswer);

        if (revocation.restore === undefined) return;
        await revocation.restore(ctx.api, subject);
        const again = stream(`/api/notes:subscribe?ticket=${await ticketOf(signIn(subject))}`);
        await live(again, 'after the restore');
        again.close();
      });
    }

    it('a stream the server ended leaves its connection as the client asked: Connection: close is closed, keep-alive carries the next request', async () => {
      for (const connection of ['close', 'keep-alive']) {
        const subject = await subjectFor(`connection ${connection}`);
        const headers = { ...(await signIn(subject).authHeaders()), connection };
        // One socket: the second stream goes on the first one's connection when it is kept.
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const first = stream('/api/notes:subscribe', headers, agent);
        await live(first, `first ${connection}`);
        expect((await first.headers).connection).toBe(connection);
        await ok(ctx.api.post(`/api/users:update/${subject.id}`, { disabled: true }));
        await within(first.ended, 'the end of the first stream');
        expect(first.events.at(-1)?.event).toBe('revoked');
        await ok(ctx.api.post(`/api/users:update/${subject.id}`, { disabled: false }));
        // Before, the server answered keep-alive to Connection: close, the client reused the connection, and Node refused the request there (400).
        const second = stream('/api/notes:subscribe', headers, agent);
        expect(await within(second.status, 'the second answer'), await second.text).toBe(200);
        await live(second, `second ${connection}`);
        second.close();
        agent.destroy();
      }
    });

    /** An API key of the subject acting with its own role. */
    const keyOf = async (subject: Subject): Promise<Key> => {
      const created = await signIn(subject).post('/api/apiKeys:create', { name: 'streams', role: subject.role });
      expect(created.status, created.text).toBe(201);
      return { id: created.body.data.id as number, token: created.body.data.token as string };
    };
    const keyTicketOf = async (key: Key): Promise<string> => {
      const reply = await ctx.built.app.inject({ method: 'POST', url: '/api/notes:subscribe', headers: { authorization: `Bearer ${key.token}` } });
      expect(reply.statusCode, reply.body).toBe(200);
      return encodeURIComponent(reply.json().data.ticket as string);
    };

    for (const revocation of KEY_CASES) {
      it(`${revocation.name}: a ticket asked with the key is refused (401 STREAM_TICKET_REVOKED), streams opened with it end with event: revoked`, async () => {
        const subject = await subjectFor(revocation.name);
        const key = await keyOf(subject);
        const unused = await keyTicketOf(key);
        const byTicket = stream(`/api/notes:subscribe?ticket=${await keyTicketOf(key)}`);
        const byHeader = stream('/api/notes:subscribe', { authorization: `Bearer ${key.token}` });
        await live(byTicket, 'before');
        await live(byHeader, 'before too');

        await revocation.revoke(ctx.api, subject, key);
        const after = await note('after the revocation');

        for (const client of [byTicket, byHeader]) {
          await within(client.ended, 'end of the stream');
          const last = client.events[client.events.length - 1]!;
          expect(last.event).toBe('revoked');
          expect(last.data.errors[0].code).toBe('STREAM_REVOKED');
          expect(client.events.some((event) => event.data.key === after)).toBe(false);
        }
        expect(await bare(unused)).toEqual([401, 'STREAM_TICKET_REVOKED']);
      });
    }

    it("a password change leaves the streams of the user's API key open, as it leaves the key", async () => {
      const subject = await subjectFor('key password');
      const key = await keyOf(subject);
      const unused = await keyTicketOf(key);
      const byTicket = stream(`/api/notes:subscribe?ticket=${await keyTicketOf(key)}`);
      const byHeader = stream('/api/notes:subscribe', { authorization: `Bearer ${key.token}` });
      await live(byTicket, 'before');
      await live(byHeader, 'before too');
      await ok(ctx.api.post(`/api/users:update/${subject.id}`, { password: 'a-changed-password' }));
      await live(byTicket, 'after');
      await live(byHeader, 'after too');
      for (const client of [byTicket, byHeader]) expect(client.events.every((event) => event.event !== 'revoked')).toBe(true);
      const again = stream(`/api/notes:subscribe?ticket=${unused}`);
      await live(again, 'by the ticket asked before');
      for (const client of [byTicket, byHeader, again]) client.close();
    });

    it('a change that leaves the caller its access keeps the stream open and delivering', async () => {
      const subject = await subjectFor('unrelated');
      const client = stream(`/api/notes:subscribe?ticket=${await ticketOf(signIn(subject))}`);
      await live(client, 'first');
      const other = await subjectFor('someone else');
      await ok(ctx.api.post(`/api/users:update/${other.id}`, { password: 'another-password' }));
      await live(client, 'second');
      expect(client.events.every((event) => event.event !== 'revoked')).toBe(true);
      client.close();
    });

    it('a narrowed grant narrows an open stream at once: fields and rows it may no longer read stop', async () => {
      const subject = await subjectFor('narrowed');
      const client = stream(`/api/notes:subscribe?ticket=${await ticketOf(signIn(subject))}`);
      await live(client, 'wide');
      expect(Object.keys(client.events[0]!.data.data).sort()).toEqual(['id', 'text']);
      await ok(ctx.api.post(`/api/roles:update/${subject.role}`, { resources: [{ name: 'notes', actions: [{ name: 'view', fields: ['id'], filter: { text: { $ne: 'hidden' } } }] }] }));
      const hidden = await note('hidden');
      const shown = await note('shown');
      await within(waitUntil(client, (events) => events.some((event) => event.data.key === shown)), 'the shown note');
      expect(client.events.some((event) => event.data.key === hidden)).toBe(false);
      expect(client.events.find((event) => event.data.key === shown)!.data.data).toEqual({ id: shown });
      client.close();
    });
  });
}

/** Resolves once `events` satisfy `done` (checked at each frame; the caller bounds the wait). */
function waitUntil(client: SseClient, done: (events: SseClient['events']) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (done(client.events)) resolve();
      else void client.waitFor(client.events.length + 1, WAIT_MS).then(check, () => undefined);
    };
    check();
  });
}

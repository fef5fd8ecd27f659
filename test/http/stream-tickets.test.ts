import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';
import { openSse, type SseClient } from '../support/sse-client.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Stream tickets (docs/events.md): `POST /api/<c>:subscribe` gives a one-minute ticket that opens
 * the same subscription by GET without an Authorization header, as a browser's EventSource must.
 */
const READER = {
  name: 'reader',
  strategy: { actions: [] },
  resources: [{ name: 'notes', actions: [{ name: 'view', fields: ['id', 'text'] }] }],
};

for (const dialect of DIALECTS) {
  describe(`stream tickets on ${dialect}`, () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const logs: string[] = [];
    const ctx = useDialectApp(dialect, { changesPollMs: 50, logLevel: 'info' }, { clock: () => now, logStream: { write: (line) => void logs.push(line) } });
    let base: string;
    let reader: TestApi;
    const open: SseClient[] = [];
    const ticketFor = async (path: string, api: TestApi = ctx.api): Promise<string> => {
      const reply = await api.request('POST', path);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.ticket as string;
    };
    /** A GET with no Authorization header, the way EventSource sends it. */
    const bare = (url: string) => ctx.built.app.inject({ method: 'GET', url });
    const refusal = async (url: string): Promise<[number, string]> => {
      const reply = await bare(url);
      return [reply.statusCode, reply.json().errors?.[0]?.code];
    };

    beforeAll(async () => {
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }, { name: 'secret', type: 'string' }] });
      await ctx.api.collection({ name: 'others', fields: [{ name: 'text', type: 'string' }] });
      expect((await ctx.api.post('/api/roles:create', READER)).status).toBe(201);
      expect((await ctx.api.post('/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['reader'] })).status).toBe(201);
      reader = apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' });
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      for (const client of open) client.close();
    });

    it('issues a one-minute ticket that opens the stream without an Authorization header, as its user sees it', async () => {
      const response = await ctx.built.app.inject({ method: 'POST', url: '/api/notes:subscribe', headers: await reader.authHeaders() });
      expect(response.statusCode).toBe(200);
      const { ticket, expiresAt } = response.json().data;
      expect(typeof ticket).toBe('string');
      expect(Date.parse(expiresAt)).toBe(now + 60_000);
      const client = openSse(`${base}/api/notes:subscribe?ticket=${encodeURIComponent(ticket)}`);
      open.push(client);
      expect(await client.status).toBe(200);
      await ctx.api.post('/api/notes:create', { text: 'hello', secret: 'hidden' });
      await client.waitFor(1);
      expect(client.events[0]!.data.data).toEqual({ id: client.events[0]!.data.key, text: 'hello' });
      client.close();
      // The same ticket again: refused.
      expect(await refusal(`/api/notes:subscribe?ticket=${encodeURIComponent(ticket)}`)).toEqual([401, 'STREAM_TICKET_USED']);
    });

    it('binds the ticket to the filter it was asked with', async () => {
      const filter = encodeURIComponent(JSON.stringify({ text: 'a' }));
      const ticket = encodeURIComponent(await ticketFor(`/api/notes:subscribe?filter=${filter}`));
      expect(await refusal(`/api/notes:subscribe?ticket=${ticket}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
      expect(await refusal(`/api/notes:subscribe?filter=${encodeURIComponent(JSON.stringify({ text: 'b' }))}&ticket=${ticket}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
      const client = openSse(`${base}/api/notes:subscribe?filter=${filter}&ticket=${ticket}`);
      open.push(client);
      expect(await client.status).toBe(200);
      client.close();
    });

    it('refuses a ticket past its minute (STREAM_TICKET_EXPIRED)', async () => {
      const ticket = encodeURIComponent(await ticketFor('/api/notes:subscribe'));
      now += 60_001;
      expect(await refusal(`/api/notes:subscribe?ticket=${ticket}`)).toEqual([401, 'STREAM_TICKET_EXPIRED']);
    });

    it('refuses a ticket for another collection, an altered one, and one on any other route', async () => {
      const ticket = await ticketFor('/api/notes:subscribe');
      expect(await refusal(`/api/others:subscribe?ticket=${encodeURIComponent(ticket)}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
      const [version, claims, mac] = ticket.split('.');
      const altered = JSON.parse(Buffer.from(claims!, 'base64url').toString('utf8'));
      altered.c = 'others';
      const forged = `${version}.${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${mac}`;
      expect(await refusal(`/api/others:subscribe?ticket=${encodeURIComponent(forged)}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
      expect(await refusal(`/api/notes:subscribe?ticket=${encodeURIComponent(`${ticket.slice(0, -2)}AA`)}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
      expect(await refusal('/api/notes:subscribe?ticket=nonsense')).toEqual([401, 'STREAM_TICKET_INVALID']);
      expect(await refusal(`/api/notes:list?ticket=${encodeURIComponent(ticket)}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
      // A ticket is no bearer token either.
      const asToken = await ctx.built.app.inject({ method: 'GET', url: '/api/notes:list', headers: { authorization: `Bearer ${ticket}` } });
      expect(asToken.statusCode).toBe(401);
      // Without a ticket or a token the stream stays closed.
      expect(await refusal('/api/notes:subscribe')).toEqual([401, 'AUTH_REQUIRED']);
    });

    it('voids the tickets of a token that signs out', async () => {
      const session = apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' });
      const ticket = encodeURIComponent(await ticketFor('/api/notes:subscribe', session));
      expect((await session.request('POST', '/api/auth:signOut')).status).toBe(200);
      expect(await refusal(`/api/notes:subscribe?ticket=${ticket}`)).toEqual([401, 'STREAM_TICKET_INVALID']);
    });

    it('asks for the rights of a subscribe: no ticket for a collection the caller may not read', async () => {
      const reply = await reader.request('POST', '/api/others:subscribe');
      expect(reply.status).toBe(403);
    });

    it('never writes a ticket to the log', async () => {
      expect(logs.join('\n')).toContain('subscribe?ticket');
      expect(logs.join('\n')).not.toMatch(/st1\./);
    });
  });
}

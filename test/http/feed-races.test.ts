import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../support/sse-client.js';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Interleavings of the change-feed reader with subscribers, forced by holding one of the
 * reader's own queries at a gate (no timing involved): whatever the order, a subscriber gets
 * every event after its cursor.
 */
for (const dialect of DIALECTS) {
  describe(`change feed races on ${dialect}`, () => {
    // A minute: only the wakes this test causes run the reader.
    const ctx = useDialectApp(dialect, { changesPollMs: 60_000 });
    let base: string;
    const open: SseClient[] = [];

    beforeAll(async () => {
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'title', type: 'string' }] });
    });
    afterAll(() => {
      for (const client of open) client.close();
    });

    it('a subscriber joining while the reader reads the position (no subscriber yet) misses nothing committed meanwhile', async () => {
      const feed = ctx.built.changes;
      await feed.settle();
      // The reader's next position read (lastId(true)) waits at a gate. SQLite and MySQL read it
      // on every idle pass; PostgreSQL's idle reader only publishes, and reads the position
      // when a subscriber comes (ChangeFeed.subscribe), so there the subscriber opens the gate.
      const real = feed.lastId.bind(feed);
      let entered!: () => void;
      const reading = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      feed.lastId = async (reader = false) => {
        if (!reader) return real(reader);
        feed.lastId = real;
        entered();
        await gate;
        return real(reader);
      };
      const idlePass = dialect === 'postgres' ? undefined : feed.settle();
      if (idlePass !== undefined) await reading;
      // Meanwhile: a subscriber joins (at the position as of now), then a write commits.
      const client = openSse(`${base}/api/notes:subscribe`, await ctx.api.authHeaders());
      open.push(client);
      expect(await client.status).toBe(200);
      if (idlePass === undefined) await reading;
      expect((await ctx.api.request('POST', '/api/notes:create', { title: 'during' })).status).toBe(201);
      // The reader's position query now sees that write: it must not skip it for the subscriber.
      release();
      await idlePass;
      await feed.settle();
      expect((await ctx.api.request('POST', '/api/notes:create', { title: 'after' })).status).toBe(201);
      await client.waitFor(2, 10_000).catch(() => undefined);
      expect(client.events.map((event) => event.data.data.title)).toEqual(['during', 'after']);
    });

    // PostgreSQL numbers events when some node publishes them. A publication made by anything
    // but this node's reader (changes:list, a subscribe's start position, webhooks, pruning)
    // must wake this node's reader too: its NOTIFY is not one the reader has read already.
    it.runIf(dialect === 'postgres')('events published by changes:list on this node reach its subscribers without waiting for the poll', async () => {
      const feed = ctx.built.changes;
      await feed.settle();
      const client = openSse(`${base}/api/notes:subscribe`, await ctx.api.authHeaders());
      open.push(client);
      expect(await client.status).toBe(200);
      // A write another node committed and has not published yet (its reader is slow, or it stopped).
      await sql`insert into corral_changes_pending (collection, action, key, data, at) values ('notes', 'create', '1000', ${JSON.stringify({ id: 1000, title: 'elsewhere' })}, ${Date.now()})`.execute(ctx.built.database.db);
      const listed = await ctx.api.request('GET', '/api/changes:list?collection=notes&pageSize=100');
      expect(listed.body.data.at(-1).data.title).toBe('elsewhere');
      // The poll is a minute away: only the NOTIFY of that publication can wake the reader.
      await client.waitFor(1, 10_000).catch(() => undefined);
      expect(client.events.map((event) => event.data.data.title)).toEqual(['elsewhere']);
    });
  });
}

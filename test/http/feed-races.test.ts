import type { AddressInfo } from 'node:net';
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
      // The reader's next lastId() (it has no subscriber, so it only moves its position) waits at a gate.
      const real = feed.lastId.bind(feed);
      let entered!: () => void;
      const reading = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      feed.lastId = async () => {
        feed.lastId = real;
        entered();
        await gate;
        return real();
      };
      const settled = feed.settle();
      await reading;
      // Meanwhile: a subscriber joins (at the position as of now), then a write commits.
      const client = openSse(`${base}/api/notes:subscribe`, await ctx.api.authHeaders());
      open.push(client);
      expect(await client.status).toBe(200);
      expect((await ctx.api.request('POST', '/api/notes:create', { title: 'during' })).status).toBe(201);
      // The reader's position query now sees that write: it must not skip it for the subscriber.
      release();
      await settled;
      expect((await ctx.api.request('POST', '/api/notes:create', { title: 'after' })).status).toBe(201);
      await client.waitFor(2, 10_000).catch(() => undefined);
      expect(client.events.map((event) => event.data.data.title)).toEqual(['during', 'after']);
    });
  });
}

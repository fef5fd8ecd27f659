import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { ROOT } from '../process/support.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { CHROMIUM, hasBrowser, openBrowser, type Browser } from './browser-support.js';

if (!hasBrowser) console.warn(`event stream browser test skipped: no Chromium at ${CHROMIUM}`);

const EXAMPLE = join(ROOT, 'examples', 'event-stream', 'follow.js');

describe('docs/events.md shows the browser example as it is', () => {
  it('the block marked with the file is that file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'events.md'), 'utf8');
    const block = /<!-- file: examples\/event-stream\/follow\.js -->\n```js\n([\s\S]*?)```\n/.exec(page)?.[1];
    expect(block).toBe(readFileSync(EXAMPLE, 'utf8'));
  });
});

// The ticket flow does not depend on the database: one dialect is enough.
describe.skipIf(!hasBrowser)(`an EventSource with a stream ticket in headless Chromium (${DIALECTS[0]})`, () => {
  let database: TestDatabase;
  let built: BuiltApp;
  let api: TestApi;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    built = await buildApp(testConfig(database, { changesPollMs: 50 }));
    api = apiFor(built);
    await api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'secret', type: 'string' }] });
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    browser = await openBrowser(base);
    // A page of the server's own origin, so fetch and EventSource reach it as the studio would.
    await browser.page.goto(`${base}/healthz`);
    await browser.page.addScriptTag({ content: readFileSync(EXAMPLE, 'utf8') });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await built?.close();
    await database?.drop();
  });

  it('receives the changes through the ticket, and resumes with a new ticket after the stream drops', async () => {
    const token = (await api.authHeaders()).authorization!.slice('Bearer '.length);
    await browser.page.evaluate((token) => {
      const page = globalThis as unknown as { seen: unknown[]; follow: (...args: unknown[]) => () => void; stop: () => void };
      page.seen = [];
      page.stop = page.follow('posts', { fields: 'id,title' }, token, (event: unknown) => page.seen.push(event));
    }, token);
    const seen = async (n: number): Promise<Array<{ action: string; data: Record<string, unknown> }>> => {
      await browser.page.waitForFunction((n) => (globalThis as unknown as { seen: unknown[] }).seen.length >= n, n, { timeout: 10_000 });
      return browser.page.evaluate(() => (globalThis as unknown as { seen: Array<{ action: string; data: Record<string, unknown> }> }).seen);
    };
    // The stream is open once the server counts a subscriber.
    await expect.poll(() => built.changes.subscriberCount, { timeout: 10_000 }).toBe(1);
    expect((await api.post('/api/posts:create', { title: 'first', secret: 'hidden' })).status).toBe(201);
    const first = await seen(1);
    expect(first[0]).toMatchObject({ action: 'create', data: { title: 'first' } });
    expect(first[0]!.data.secret).toBeUndefined();
    // The connection drops: EventSource's own retry would reuse the spent ticket; the example asks for a new one.
    built.app.server.closeAllConnections();
    await expect.poll(() => built.changes.subscriberCount, { timeout: 10_000 }).toBe(0);
    expect((await api.post('/api/posts:create', { title: 'second', secret: 'hidden' })).status).toBe(201);
    const both = await seen(2);
    expect(both.map((event) => event.data.title)).toEqual(['first', 'second']);
    await browser.page.evaluate(() => (globalThis as unknown as { stop: () => void }).stop());
  });
});

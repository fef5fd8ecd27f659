import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { defineBlog } from '../support/blog-schema.js';
import { apiFor, TEST_ROOT, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { openBrowser, screenshot } from '../browser/browser-support.js';

/** Debian's chromium package (`.ci/run` installs it); the test never downloads a browser. */
const CHROMIUM = process.env.CORRAL_TEST_CHROMIUM ?? '/usr/bin/chromium';
const BROWSER_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) console.warn(`GET /api/docs browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CORRAL_TEST_CHROMIUM)`);

// The page does not depend on the database: one dialect is enough.
describe.skipIf(!hasBrowser)(`GET /api/docs in headless Chromium (${DIALECTS[0]})`, () => {
  let database: TestDatabase;
  let built: BuiltApp;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    built = await buildApp(testConfig(database));
    await defineBlog(apiFor(built));
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await built?.close();
    await database?.drop();
  });

  it("lists a collection's operations, loading nothing from outside the server", async () => {
    const profile = mkdtempSync(join(tmpdir(), 'corral-chromium-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: BROWSER_FLAGS });
    const outside: string[] = [];
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
        outside.push(url);
        return route.abort();
      });
      // The document needs a token; the page takes it from its URL fragment (docs/auth.md).
      const signedIn = await apiFor(built).post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password });
      const response = await page.goto(`${base}/api/docs#token=${encodeURIComponent(signedIn.body.data.token as string)}`);
      expect(response?.status()).toBe(200);
      // Tags start collapsed (a schema of many collections renders hundreds of operations): open posts'.
      await page.locator('#operations-tag-posts').waitFor({ timeout: 20_000 });
      await page.locator('#operations-tag-posts').click();
      await page.getByText('posts.list', { exact: true }).first().waitFor({ timeout: 20_000 });
      const ids = await page.locator('.opblock-summary-operation-id').allTextContents();
      for (const action of ['list', 'get', 'count', 'create', 'update', 'destroy']) expect(ids).toContain(`posts.${action}`);
      expect(ids).toContain('posts.tags.add');
      expect(await page.locator('.opblock-summary-path', { hasText: '/api/posts:list' }).count()).toBe(1);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 60_000);
  it('shows a sign-in box instead of a bare error, then runs "Try it out" from the page: the default list call and a create', async () => {
    const browser = await openBrowser(base);
    const page = browser.page;
    page.setDefaultTimeout(20_000);
    try {
      expect((await page.goto(`${base}/api/docs`))?.status()).toBe(200);
      await page.locator('#corral-sign-in').waitFor();
      await page.getByLabel('Email or username').fill(TEST_ROOT.email);
      await page.getByLabel('Password').fill(TEST_ROOT.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#operations-tag-posts').click();
      const list = page.locator('[id="operations-posts-posts\\\\.list"]');
      await list.locator('.opblock-summary').click();
      await list.getByRole('button', { name: 'Try it out' }).click();
      await list.getByRole('button', { name: 'Execute' }).click();
      await expect.poll(() => list.locator('.live-responses-table tbody .response-col_status').first().textContent()).toMatch(/^200/);
      const create = page.locator('[id="operations-posts-posts\\\\.create"]');
      await create.locator('.opblock-summary').click();
      await create.getByRole('button', { name: 'Try it out' }).click();
      await create.locator('textarea.body-param__text').fill('{"title": "written from the docs page"}');
      await create.getByRole('button', { name: 'Execute' }).click();
      await expect.poll(() => create.locator('.live-responses-table tbody .response-col_status').first().textContent()).toMatch(/^201/);
      await screenshot(browser, 'api-docs-try-it-out');
      const stored = await apiFor(built).get('/api/posts:list?filter={"title":"written from the docs page"}');
      expect(stored.body.data).toHaveLength(1);
      expect(browser.outside).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});

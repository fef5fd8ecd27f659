import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { apiFor, TEST_ROOT, testConfig, type TestApi } from '../support/test-app.js';
import { systemCollectionNames } from '../../src/schema/system-collection-tables.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { CHROMIUM, hasBrowser, openBrowser, screenshot, SCREENSHOTS, type Browser } from './browser-support.js';

if (!hasBrowser) console.warn(`Corral Studio browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CORRAL_TEST_CHROMIUM)`);

/** The studio talks to the API only; SQLite and PostgreSQL cover both kinds of change feed wake-up. */
const BROWSER_DIALECTS = DIALECTS.filter((dialect) => dialect === 'sqlite' || dialect === 'postgres');

async function signIn(page: Page, account: string, password: string): Promise<void> {
  await page.getByLabel('Email or username').fill(account);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Adds a field through the field form of the open collection. */
async function addField(page: Page, name: string, type: string, options: { target?: string; unique?: boolean; required?: boolean } = {}): Promise<void> {
  await page.getByLabel('Field name').fill(name);
  await page.getByLabel('Type').selectOption(type);
  if (options.target !== undefined) await page.getByLabel('Target collection').selectOption(options.target);
  if (options.unique === true) await page.getByLabel('Unique').check();
  if (options.required === true) await page.getByLabel('Required').check();
  await page.getByRole('button', { name: 'Add field' }).click();
  await page.locator(`tr[data-field="${name}"]`).waitFor();
}

function rowTexts(page: Page, column: string): Promise<string[]> {
  return page.locator(`table.records td[data-column="${column}"]`).allTextContents();
}

for (const dialect of BROWSER_DIALECTS) {
  describe.skipIf(!hasBrowser).sequential(`Corral Studio in headless Chromium (${dialect})`, () => {
    let database: TestDatabase;
    let built: BuiltApp;
    let api: TestApi;
    let base: string;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      // Webhooks may reach the test's receiver on loopback; a failed attempt waits an hour unless retried.
      built = await buildApp(testConfig(database, { changesPollMs: 50, webhookAllowPrivate: true, webhookRetryBaseMs: 3_600_000 }));
      api = apiFor(built);
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
      browser = await openBrowser(base);
      page = browser.page;
      page.setDefaultTimeout(5000);
    });

    // A failing step leaves a picture of the page it failed on.
    afterEach(async (context) => {
      if (context.task.result?.state === 'fail') await page.screenshot({ path: `${SCREENSHOTS}/failed-${dialect}-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}.png` }).catch(() => undefined);
    });

    afterAll(async () => {
      if (browser !== undefined) expect(browser.outside).toEqual([]);
      await browser?.close();
      await built?.close();
      await database?.drop();
    });

    it('signs in and lists the collections', async () => {
      const response = await page.goto(`${base}/`);
      expect(response?.status()).toBe(200);
      await signIn(page, TEST_ROOT.email, TEST_ROOT.password);
      await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
      await expect(page.getByTestId('current-user').textContent()).resolves.toBeTruthy();
      await screenshot(browser, `${dialect}-01-collections`);
    }, 60_000);

    it('lists the system collections apart, without Drop, and their built-in fields without Edit or Drop', async () => {
      await page.goto(`${base}/studio/collections`);
      const system = page.locator('tr[data-system-collection]');
      await system.first().waitFor();
      const names = await system.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-system-collection')));
      expect(names.sort()).toEqual([...systemCollectionNames()].sort());
      expect(await system.getByRole('button').count()).toBe(0);
      expect(await page.locator('tr[data-collection="users"]').count()).toBe(0);
      await page.getByRole('heading', { name: 'System collections' }).scrollIntoViewIfNeeded();
      await screenshot(browser, `${dialect}-01-system-collections`);
      await system.filter({ hasText: 'users' }).getByRole('link', { name: 'Fields' }).click();
      await page.locator('tr[data-field="email"]').waitFor();
      for (const field of ['id', 'email', 'password', 'roles']) expect(await page.locator(`tr[data-field="${field}"]`).getByRole('button').count(), field).toBe(0);
      // A field the client adds to users is the client's: it can be edited and dropped.
      await addField(page, 'phone', 'string');
      await expect(page.locator('tr[data-field="phone"]').getByRole('button', { name: 'Drop field phone' }).count()).resolves.toBe(1);
      await screenshot(browser, `${dialect}-01-system-fields`);
      expect((await api.del('/api/collections/users/fields/phone')).body).toEqual({ data: 1 });
      // The next step starts where signing in left off.
      await page.getByRole('link', { name: 'Collections' }).first().click();
      await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
    }, 60_000);

    it('creates collections with a string, integer, date, json, belongsTo and belongsToMany field', async () => {
      for (const name of ['authors', 'books']) {
        await page.getByLabel('Name', { exact: true }).fill(name);
        await page.getByRole('button', { name: 'Create collection' }).click();
        await page.getByRole('heading', { name: `Fields of ${name}` }).waitFor();
        if (name === 'authors') {
          await addField(page, 'name', 'string');
          await page.getByRole('link', { name: 'Collections' }).first().click();
        }
      }
      await addField(page, 'title', 'string', { unique: true });
      await addField(page, 'pages', 'integer');
      await addField(page, 'published', 'date');
      await addField(page, 'meta', 'json');
      await addField(page, 'author', 'belongsTo', { target: 'authors' });
      await addField(page, 'reviewers', 'belongsToMany', { target: 'authors' });
      // The key names the server chose are shown.
      await expect(page.locator('tr[data-field="author"]').textContent()).resolves.toContain('foreign key authorId');
      await expect(page.locator('tr[data-field="reviewers"]').textContent()).resolves.toContain('through authors_books');
      await screenshot(browser, `${dialect}-02-fields`);
      const fields = await api.get('/api/collections/books/fields:list');
      expect(fields.body.data.map((field: { name: string }) => field.name)).toEqual(expect.arrayContaining(['title', 'pages', 'published', 'meta', 'author', 'reviewers']));
    }, 60_000);

    it('adds records through the form', async () => {
      await page.goto(`${base}/studio/collections/authors`);
      for (const name of ['Ann', 'Bob']) {
        await page.getByRole('button', { name: 'New record' }).click();
        await page.getByLabel(/^name/).fill(name);
        await page.getByRole('button', { name: 'Create record' }).click();
        await page.locator('table.records td[data-column="name"]', { hasText: name }).waitFor();
      }
      await page.goto(`${base}/studio/collections/books`);
      await page.getByRole('button', { name: 'New record' }).click();
      await page.getByLabel(/^title/).fill('Form book');
      await page.getByLabel(/^pages/).fill('250');
      await page.getByLabel(/^published/).fill('2026-03-04T10:30');
      await page.getByLabel(/^meta/).fill('{"isbn": "978"}');
      await page.getByRole('button', { name: 'Create record' }).click();
      await page.locator('table.records td[data-column="title"]', { hasText: 'Form book' }).waitFor();
      const stored = await api.get('/api/books:list?filter={"title":"Form book"}');
      expect(stored.body.data[0]).toMatchObject({ pages: 250, meta: { isbn: '978' } });
      expect(typeof stored.body.data[0].published).toBe('string');
    }, 60_000);

    it('filters with the builder, sorts by a column and pages', async () => {
      // 24 more books through the API: pages 10, 20, … 240.
      await api.post('/api/books:create', Array.from({ length: 24 }, (_, index) => ({ title: `Book ${String(index + 1).padStart(2, '0')}`, pages: (index + 1) * 10 })));
      await page.reload();
      await expect.poll(() => page.getByTestId('row-count').textContent()).toContain('25 rows');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('button', { name: 'Add condition' }).click();
      await page.getByLabel('Field of condition 1').selectOption('pages');
      await page.getByLabel('Operator of condition 1').selectOption('$gt');
      await page.getByLabel('Value of condition 1').fill('200');
      await expect(page.getByLabel('Filter', { exact: true }).textContent()).resolves.toBe('{"pages":{"$gt":200}}');
      await page.getByRole('button', { name: 'Apply filter' }).click();
      await expect.poll(() => page.getByTestId('row-count').textContent()).toContain('5 rows');
      await page.getByRole('button', { name: 'Sort by pages' }).click();
      await expect.poll(() => rowTexts(page, 'pages')).toEqual(['210', '220', '230', '240', '250']);
      await page.getByRole('button', { name: 'Sort by pages' }).click();
      await expect.poll(() => rowTexts(page, 'pages')).toEqual(['250', '240', '230', '220', '210']);
      await screenshot(browser, `${dialect}-03-filter-sort`);
      await page.getByRole('button', { name: 'Clear' }).click();
      // Descending → unsorted → ascending.
      await page.getByRole('button', { name: 'Sort by pages' }).click();
      await page.getByRole('button', { name: 'Sort by pages' }).click();
      await expect.poll(() => page.getByTestId('row-count').textContent()).toContain('25 rows · page 1 of 2');
      await expect.poll(() => rowTexts(page, 'pages')).toHaveLength(20);
      await page.getByRole('button', { name: 'Page 2' }).click();
      await expect.poll(() => rowTexts(page, 'pages')).toEqual(['210', '220', '230', '240', '250']);
    }, 60_000);

    it('shows field errors in place when editing, then links records through the pickers', async () => {
      await page.getByRole('button', { name: 'Page 1' }).click();
      const first = page.locator('table.records tr', { hasText: 'Book 01' });
      await first.getByRole('button', { name: /^Edit books/ }).click();
      await page.getByLabel(/^pages/).fill('ten');
      await page.getByRole('button', { name: 'Save record' }).click();
      await expect(page.locator('#field-pages-error').textContent()).resolves.toBe('pages must be a number');
      // The API's own refusal (a unique title) lands next to its field too.
      await page.getByLabel(/^pages/).fill('11');
      await page.getByLabel(/^title/).fill('Form book');
      await page.getByRole('button', { name: 'Save record' }).click();
      await page.locator('#field-title-error').waitFor();
      await expect(page.locator('#field-title-error').textContent()).resolves.toContain('already exists');
      await expect(page.getByLabel(/^title/).getAttribute('aria-invalid')).resolves.toBe('true');
      await screenshot(browser, `${dialect}-04-field-error`);
      await page.getByLabel(/^title/).fill('Book 01');
      await page.getByLabel('Search authors for author').fill('An');
      await page.getByRole('button', { name: 'Link Ann as author' }).click();
      await page.getByLabel('Search authors for reviewers').fill('Bo');
      await page.getByRole('button', { name: 'Link Bob as reviewers' }).click();
      await page.getByRole('button', { name: 'Save record' }).click();
      await page.locator('table.records tr', { hasText: 'Book 01' }).locator('td[data-column="author"]', { hasText: 'Ann' }).waitFor();
      const linked = await api.get('/api/books:list?filter={"title":"Book 01"}&appends=author,reviewers');
      expect(linked.body.data[0]).toMatchObject({ pages: 11, author: { name: 'Ann' }, reviewers: [{ name: 'Bob' }] });
    }, 60_000);

    it('shows a write made through the API in the open grid within a second', async () => {
      await page.locator('[data-live="true"]').waitFor();
      await api.post('/api/books:update?filterByTk=2', { title: 'Changed elsewhere' });
      await page.locator('table.records td[data-column="title"]', { hasText: 'Changed elsewhere' }).waitFor({ timeout: 1000 });
      await screenshot(browser, `${dialect}-05-live`);
    }, 60_000);

    it('grants a role a row filter and a field list; its user sees only those rows and fields', async () => {
      await page.getByRole('link', { name: 'Access' }).click();
      await page.getByLabel('Role name').fill('reader');
      await page.getByRole('button', { name: 'Create role' }).click();
      await page.locator('li[data-role="reader"] .grants').waitFor();
      const grants = page.locator('li[data-role="reader"]');
      await grants.getByLabel('Collection').selectOption('books');
      await grants.getByRole('checkbox', { name: 'title' }).check();
      await grants.getByRole('checkbox', { name: 'pages', exact: true }).check();
      await grants.getByRole('button', { name: 'Add condition' }).click();
      await grants.getByLabel('Field of condition 1').selectOption('pages');
      await grants.getByLabel('Operator of condition 1').selectOption('$gte');
      await grants.getByLabel('Value of condition 1').fill('200');
      await grants.getByRole('button', { name: 'Save grant' }).click();
      await grants.locator('tr[data-grant="books"]').waitFor();
      const users = page.getByRole('form', { name: 'New user' });
      await users.getByLabel('Email').fill('reader@corral.test');
      await users.getByLabel('Password').fill('reader-password-1');
      await users.getByRole('checkbox', { name: 'reader' }).check();
      await users.getByRole('button', { name: 'Create user' }).click();
      await page.locator('tr[data-user="reader@corral.test"]').waitFor();
      await screenshot(browser, `${dialect}-06-access`);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, 'reader@corral.test', 'reader-password-1');
      await page.goto(`${base}/studio/collections/books`);
      await expect.poll(() => page.getByTestId('row-count').textContent()).toContain('6 rows');
      const headers = await page.locator('table.records thead th').allTextContents();
      expect(headers.map((text) => text.trim()).filter((text) => text !== '' && text !== 'Select' && text !== 'Actions')).toEqual(['id', 'title', 'pages']);
      expect((await rowTexts(page, 'pages')).map(Number).every((pages) => pages >= 200)).toBe(true);
      await screenshot(browser, `${dialect}-07-reader`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, TEST_ROOT.email, TEST_ROOT.password);
    }, 60_000);

    it('creates an API key, shows it once, and revokes it', async () => {
      await page.getByRole('link', { name: 'Access' }).click();
      const form = page.getByRole('form', { name: 'New API key' });
      await form.getByLabel('Key name').fill('ci-key');
      await form.getByRole('button', { name: 'Create key' }).click();
      const token = await page.getByTestId('new-api-key').inputValue();
      expect(token.length).toBeGreaterThan(20);
      const check = async () => (await api.request('GET', '/api/auth:check', undefined, { authorization: `Bearer ${token}` })).status;
      expect(await check()).toBe(200);
      await screenshot(browser, `${dialect}-08-api-key`);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await expect(page.getByTestId('new-api-key').count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Revoke ci-key' }).click();
      await page.getByRole('button', { name: 'Revoke ci-key' }).last().click();
      await page.locator('tr[data-api-key="ci-key"]').waitFor({ state: 'detached' });
      expect(await check()).toBe(401);
    }, 60_000);

    it('retries a failed webhook delivery from the events page', async () => {
      let up = false;
      let received = 0;
      const receiver = createServer((request, response) => {
        request.resume();
        request.on('end', () => {
          received++;
          response.statusCode = up ? 200 : 500;
          response.end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const hook = await api.post('/api/webhooks:create', { url, collections: ['books'], secret: 'a-long-secret' });
        expect(hook.status, hook.text).toBe(201);
        expect((await api.post('/api/books:create', { title: 'Hooked' })).status).toBe(201);
        await expect.poll(() => received, { timeout: 10_000 }).toBe(1);
        await page.goto(`${base}/studio/events`);
        await page.getByRole('button', { name: url }).click();
        const retry = page.getByRole('button', { name: /^Retry the delivery of event/ });
        await retry.waitFor();
        await expect(page.locator('table.grid').last().textContent()).resolves.toContain('the receiver answered 500');
        up = true;
        await retry.click();
        await expect.poll(() => received, { timeout: 10_000 }).toBe(2);
        await expect.poll(async () => (await api.get(`/api/webhooks/${hook.body.data.id}/deliveries:list`)).body.data[0]?.status, { timeout: 10_000 }).toBe('delivered');
        await screenshot(browser, `${dialect}-09-webhook-retry`);
        expect((await api.put(`/api/webhooks/${hook.body.data.id}`, { active: false })).status).toBe(200);
      } finally {
        await new Promise((resolve) => receiver.close(resolve));
      }
    }, 60_000);

    it('exports what the grid selects, imports a spreadsheet, and attaches a file to a record', async () => {
      await page.goto(`${base}/studio/collections/books`);
      await page.locator('table.records td[data-column="title"]').first().waitFor();
      const [exported] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      expect(exported.suggestedFilename()).toBe('books.csv');
      const csv = await readFile(await exported.path(), 'utf8');
      expect(csv.split('\n')[0]).toContain('title');
      expect(csv).toContain('Changed elsewhere');

      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const form = page.getByRole('form', { name: 'Import into books' });
      // All or nothing: a row with a title that exists refuses the file, and the rejected row is named.
      await form.getByLabel('Spreadsheet (CSV or XLSX)').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('title,pages\nImported one,5\nForm book,6\n') });
      await form.getByRole('button', { name: 'Import file' }).click();
      await form.getByRole('table', { name: 'Rejected rows' }).waitFor();
      await expect(form.getByRole('table', { name: 'Rejected rows' }).textContent()).resolves.toContain('3');
      expect((await api.get('/api/books:list?filter={"title":"Imported one"}')).body.data).toEqual([]);
      await form.getByLabel('Invalid rows').selectOption('skip-invalid');
      await form.getByLabel('Spreadsheet (CSV or XLSX)').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('title,pages\nImported one,5\nForm book,6\n') });
      await form.getByRole('button', { name: 'Import file' }).click();
      await expect.poll(() => form.getByTestId('import-report').textContent()).toContain('1 created');
      expect((await api.get('/api/books:list?filter={"title":"Imported one"}')).body.data).toMatchObject([{ pages: 5 }]);
      await screenshot(browser, `${dialect}-10-import`);

      await page.goto(`${base}/studio/collections/books/fields`);
      await addField(page, 'cover', 'attachment');
      await page.goto(`${base}/studio/collections/books`);
      const row = page.locator('table.records tr', { hasText: 'Changed elsewhere' });
      await row.getByRole('button', { name: /^Edit books/ }).click();
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('not really pixels')]);
      await page.getByLabel('Upload').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: png });
      await page.getByRole('button', { name: 'Download cover.png' }).first().waitFor();
      await page.getByRole('button', { name: 'Save record' }).click();
      const cell = page.locator('table.records tr', { hasText: 'Changed elsewhere' }).locator('td[data-column="cover"]');
      await cell.getByRole('button', { name: 'Download cover.png' }).waitFor();
      await screenshot(browser, `${dialect}-11-attachment`);
      const [file] = await Promise.all([page.waitForEvent('download'), cell.getByRole('button', { name: 'Download cover.png' }).click()]);
      expect(file.suggestedFilename()).toBe('cover.png');
      expect(await readFile(await file.path())).toEqual(png);
    }, 60_000);

    it('shows a read-only grid on a phone', async () => {
      await page.setViewportSize({ width: 390, height: 800 });
      await page.goto(`${base}/studio/collections/books`);
      await page.locator('table.records td[data-column="title"]').first().waitFor();
      await expect(page.getByRole('button', { name: 'New record' }).isVisible()).resolves.toBe(false);
      await screenshot(browser, `${dialect}-09-phone`);
      await page.setViewportSize({ width: 1280, height: 800 });
    }, 60_000);

    it('drops the collection after naming what goes with it', async () => {
      await page.goto(`${base}/studio/collections`);
      const row = page.locator('tr[data-collection="authors"]');
      await row.getByRole('button', { name: 'Drop' }).click();
      await expect(row.getByRole('alertdialog').textContent()).resolves.toContain('books.author');
      await row.getByRole('button', { name: 'Drop authors' }).click();
      await row.waitFor({ state: 'detached' });
      await page.locator('tr[data-collection="books"]').getByRole('button', { name: 'Drop' }).click();
      await page.getByRole('button', { name: 'Drop books' }).click();
      await page.locator('tr[data-collection="books"]').waitFor({ state: 'detached' });
      await screenshot(browser, `${dialect}-10-dropped`);
      expect((await api.get('/api/books:list')).status).toBe(404);
    }, 60_000);
  });
}

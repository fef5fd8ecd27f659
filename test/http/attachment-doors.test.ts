import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, type FormPart } from '../support/multipart-body.js';
import { send, upload } from '../support/multipart.js';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Issue 37, findings 1–3: an attachment row is made by an upload only (its path, sha256, size,
 * mimetype and storage are the server's on every write path), reading its bytes is reading a
 * row that owns it (with the attachment field in the caller's field list), and linking one
 * needs it readable. `mixed` may view and create everywhere but sees its own notes only and
 * nothing of `secrets` (and creates and renames its own attachments); `titleonly` views notes with the fields id and title; `fullview` views
 * notes whole.
 */

const MISSING = 999_999;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

interface Ids {
  /** An attachment linked to a secret row only (root's upload). */
  secret: number;
  secretSha: string;
  secretPath: string;
  /** A note of mixed's own. */
  note: number;
  /** An upload of mixed's own, linked nowhere. */
  mine: number;
}

/** A forged attachment row naming the secret's bytes (the CRLF in the type would reach a header). */
const forged = (ids: Ids, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  filename: 'x.html',
  mimetype: 'text/html\r\nx-injected: 1',
  size: 3,
  sha256: ids.secretSha,
  storage: 'local',
  path: ids.secretPath,
  ...extra,
});

/** [what, method, url, body]: every JSON door of finding 1, sent by mixed; each is refused and stores nothing. */
const FORGERIES: Array<[string, string, (ids: Ids) => string, (ids: Ids) => unknown, number, string]> = [
  ['attachments:create with JSON', 'POST', () => '/api/attachments:create', (ids) => forged(ids), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['attachments:firstOrCreate', 'POST', () => '/api/attachments:firstOrCreate?filterKeys=filename', (ids) => forged(ids), 400, 'UPLOAD_REQUIRED'],
  ['attachments:updateOrCreate', 'POST', () => '/api/attachments:updateOrCreate?filterKeys=filename', (ids) => forged(ids), 400, 'UPLOAD_REQUIRED'],
  ['a nested create on notes:create', 'POST', () => '/api/notes:create', (ids) => ({ title: 'n', files: [forged(ids)] }), 400, 'UPLOAD_REQUIRED'],
  ['an association create with JSON', 'POST', (ids) => `/api/notes/${ids.note}/files:create`, (ids) => forged(ids), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ['updateAssociationValues on notes:update', 'POST', (ids) => `/api/notes:update?filterByTk=${ids.note}&updateAssociationValues=files`, (ids) => ({ files: [forged(ids)] }), 400, 'UPLOAD_REQUIRED'],
  ['a bulk create of attachments', 'POST', () => '/api/notes:create', (ids) => [{ title: 'a' }, { title: 'b', files: [forged(ids)] }], 400, 'UPLOAD_REQUIRED'],
];

/** [what, url, body for an attachment key]: links by mixed; the secret answers exactly like a missing key. */
const LINKS: Array<[string, (ids: Ids) => string, (key: number) => unknown]> = [
  ['a nested key on notes:create', () => '/api/notes:create', (key) => ({ title: 'linked', files: [key] })],
  ['a nested {id} on notes:create', () => '/api/notes:create', (key) => ({ title: 'linked', files: [{ id: key }] })],
  ['files:add', (ids) => `/api/notes/${ids.note}/files:add`, (key) => [key]],
  ['files:set', (ids) => `/api/notes/${ids.note}/files:set`, (key) => [key]],
  ['files:toggle', (ids) => `/api/notes/${ids.note}/files:toggle`, (key) => [key]],
  ['updateAssociationValues', (ids) => `/api/notes:update?filterByTk=${ids.note}&updateAssociationValues=files`, (key) => ({ files: [key] })],
];

/** [what, url, body for an attachment key]: links into `cover` (accept image/*) by mixed; an HTML attachment is 415 on each. */
const COVER_LINKS: Array<[string, (ids: Ids) => string, (key: number) => unknown]> = [
  ['cover:set', (ids) => `/api/notes/${ids.note}/cover:set`, (key) => [key]],
  ['cover:add', (ids) => `/api/notes/${ids.note}/cover:add`, (key) => [key]],
  ['a nested key on notes:create', () => '/api/notes:create', (key) => ({ title: 'c', cover: [key] })],
  ['a nested {id} on notes:create', () => '/api/notes:create', (key) => ({ title: 'c', cover: [{ id: key }] })],
  ['a nested key on notes:update', (ids) => `/api/notes:update?filterByTk=${ids.note}`, (key) => ({ cover: [key] })],
  ['updateAssociationValues', (ids) => `/api/notes:update?filterByTk=${ids.note}&updateAssociationValues=cover`, (key) => ({ cover: [{ id: key }] })],
  ['notes:firstOrCreate', () => '/api/notes:firstOrCreate?filterKeys=title', (key) => ({ title: 'first cover', cover: [key] })],
  ['notes:updateOrCreate', () => '/api/notes:updateOrCreate?filterKeys=title', (key) => ({ title: 'mine', cover: [key] })],
];

/** A PNG's magic bytes and a little more: sniffed as image/png. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(24)]);
const HTML = Buffer.from('<html><script>alert(1)</script></html>\n');

/** The answer without what names the key (so a hidden key and a missing one compare equal). */
function shape(reply: Reply, key: number): string {
  // Only where the answer names the key (`has no record 7`, `"missing":["7"]`): row numbers stay.
  return `${reply.status} ${reply.text.replaceAll(`record ${key}`, 'record <key>').replaceAll(`"${key}"`, '"<key>"')}`;
}

async function importCsv(built: Parameters<typeof upload>[0], auth: Record<string, string>, url: string, text: string): Promise<Reply> {
  const parts: FormPart[] = [{ name: 'file', filename: 'rows.csv', type: 'text/csv', content: text }];
  const { payload, contentType } = multipartBody(parts);
  const reply = await built.app.inject({ method: 'POST', url, payload, headers: { ...auth, 'content-type': contentType } });
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    body = undefined;
  }
  return { status: reply.statusCode, headers: reply.headers, body, text: reply.body };
}

for (const dialect of DIALECTS) {
  describe(`attachment doors on ${dialect}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-doors-'));
    const ctx = useDialectApp(dialect, { storage: { kind: 'local', dir } });
    const ids = {} as Ids;
    const secretBytes = randomBytes(48);
    let root: Record<string, string>;
    let mixed: TestApi;
    let mixedAuth: Record<string, string>;
    const as: Record<string, Record<string, string>> = {};
    /** Every attachment row as root sees it: id, path, sha256, size, mimetype. */
    const rows = async (): Promise<string> => JSON.stringify((await ctx.api.get('/api/attachments:list?paginate=false&sort=id&fields=id,path,sha256,size,mimetype')).body.data);
    const links = async (): Promise<string> => JSON.stringify((await ctx.api.get('/api/notes:list?paginate=false&sort=id&appends=files&fields=id')).body.data);
    const content = (id: number, auth: Record<string, string>) => send(ctx.built, 'GET', `/api/attachments/${id}/content`, auth);

    beforeAll(async () => {
      root = await ctx.api.authHeaders();
      await ctx.api.collection({ name: 'notes', createdBy: true, fields: [{ name: 'title', type: 'string' }, { name: 'files', type: 'attachment' }, { name: 'cover', type: 'attachment', multiple: false, accept: ['image/*'] }] });
      await ctx.api.collection({ name: 'secrets', fields: [{ name: 'title', type: 'string' }, { name: 'files', type: 'attachment' }] });
      const roles = [
        { name: 'mixed', strategy: { actions: ['view', 'create'] }, resources: [{ name: 'notes', actions: [{ name: 'view', scope: 'own' }, { name: 'create' }, { name: 'update', scope: 'own' }] }, { name: 'attachments', actions: [{ name: 'view' }, { name: 'create' }, { name: 'update', scope: 'own' }] }, { name: 'secrets', actions: [] }] },
        { name: 'titleonly', strategy: { actions: [] }, resources: [{ name: 'notes', actions: [{ name: 'view', fields: ['id', 'title'] }] }] },
        { name: 'fullview', strategy: { actions: [] }, resources: [{ name: 'notes', actions: [{ name: 'view' }] }] },
        { name: 'ownfiles', strategy: { actions: [] }, resources: [{ name: 'notes', actions: [{ name: 'view' }] }, { name: 'attachments', actions: [{ name: 'view', scope: 'own', fields: ['id', 'filename'] }] }] },
      ];
      for (const role of roles) {
        const made = await ctx.api.post('/api/roles:create', role);
        expect(made.status, made.text).toBe(201);
        const user = await ctx.api.post('/api/users:create', { email: `${role.name}@corral.test`, password: `${role.name}-password`, roles: [role.name] });
        expect(user.status, user.text).toBe(201);
        as[role.name] = await apiFor(ctx.built, { account: `${role.name}@corral.test`, password: `${role.name}-password` }).authHeaders();
      }
      mixed = apiFor(ctx.built, { account: 'mixed@corral.test', password: 'mixed-password' });
      mixedAuth = as.mixed!;
      const secret = await ctx.api.post('/api/secrets:create', { title: 'top' });
      const up = await upload(ctx.built, `/api/secrets/${secret.body.data.id}/files:create`, root, { bytes: secretBytes, filename: 'secret.bin' });
      expect(up.status, up.raw.toString()).toBe(201);
      Object.assign(ids, { secret: up.json.data.id, secretSha: sha256(secretBytes), secretPath: up.json.data.path });
      const note = await mixed.post('/api/notes:create', { title: 'mine' });
      expect(note.status, note.text).toBe(201);
      ids.note = note.body.data.id;
      const mine = await upload(ctx.built, '/api/attachments:create', mixedAuth, { bytes: Buffer.from('my own words\n'), filename: 'mine.txt', type: 'text/plain' });
      expect(mine.status, mine.raw.toString()).toBe(201);
      ids.mine = mine.json.data.id;
    });

    it.each(FORGERIES)('finding 1: a forged attachment row through %s is refused, nothing stored', async (_what, method, url, body, status, code) => {
      const before = [await rows(), await links()];
      const reply = await mixed.request(method, url(ids), body(ids));
      expect(reply.status, reply.text).toBe(status);
      expect(reply.body.errors[0].code).toBe(code);
      expect([await rows(), await links()]).toEqual(before);
    });

    it('finding 1: an import of attachments with a path column is refused, nothing stored', async () => {
      const before = await rows();
      const reply = await importCsv(ctx.built, mixedAuth, '/api/attachments:import', `filename,mimetype,size,sha256,storage,path\r\nx.txt,text/plain,3,${ids.secretSha},local,${ids.secretPath}\r\n`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.text).toContain('IMPORT_INVALID');
      expect(reply.text).toContain('UPLOAD_REQUIRED');
      expect(await rows()).toBe(before);
    });

    it("finding 1: updates never change what describes the bytes (updateOrCreate on the caller's own upload, update, root included)", async () => {
      const before = await rows();
      const own = await mixed.post('/api/attachments:updateOrCreate?filterKeys=filename', { filename: 'mine.txt', path: ids.secretPath, sha256: ids.secretSha, size: 48 });
      expect(own.status, own.text).toBe(200);
      const update = await ctx.api.post(`/api/attachments:update?filterByTk=${ids.mine}`, { path: ids.secretPath });
      expect(update.status, update.text).toBe(400);
      const rootForge = await ctx.api.post('/api/attachments:firstOrCreate?filterKeys=filename', forged(ids, { filename: 'root.txt' }));
      expect(rootForge.status, rootForge.text).toBe(400);
      expect(rootForge.body.errors[0].code).toBe('UPLOAD_REQUIRED');
      expect(await rows()).toBe(before);
      const download = await content(ids.mine, mixedAuth);
      expect(download.status).toBe(200);
      expect(download.raw.toString()).toBe('my own words\n');
    });

    it('finding 1 side effects: a forged type, CRLF or size never reaches a row, so accept, headers and downloads hold', async () => {
      const html = Buffer.from('<html><script>alert(1)</script></html>\n');
      const cover = await upload(ctx.built, `/api/notes/${ids.note}/cover:create`, mixedAuth, { bytes: html, filename: 'cover.png', type: 'image/png' });
      expect(cover.status, cover.raw.toString()).toBe(415);
      expect(cover.json.errors[0].code).toBe('FILE_TYPE_NOT_ALLOWED');
      const page = await upload(ctx.built, '/api/attachments:create', mixedAuth, { bytes: html, filename: 'page.html', type: 'image/png' });
      expect(page.status, page.raw.toString()).toBe(201);
      expect(page.json.data).toMatchObject({ mimetype: 'text/html', size: html.length });
      const id = page.json.data.id as number;
      const before = await rows();
      const forge = await mixed.post('/api/attachments:updateOrCreate?filterKeys=filename', { filename: 'page.html', mimetype: 'image/png\r\nx-injected: 1', size: 1, sha256: ids.secretSha, path: ids.secretPath });
      expect(forge.status, forge.text).toBe(200);
      const nested = await mixed.post('/api/notes:create', { title: 'forged cover', cover: [{ filename: 'c.png', mimetype: 'image/png', size: 1, path: page.json.data.path, sha256: page.json.data.sha256, storage: 'local' }] });
      expect(nested.status, nested.text).toBe(400);
      expect(nested.body.errors[0].code).toBe('UPLOAD_REQUIRED');
      expect(await rows()).toBe(before);
      const download = await content(id, mixedAuth);
      expect(download.status).toBe(200);
      expect(download.raw.equals(html)).toBe(true);
      expect(String(download.headers['content-type'])).toMatch(/^text\/html/);
      expect(String(download.headers['content-disposition'])).toMatch(/^attachment/);
      expect(Number(download.headers['content-length'])).toBe(html.length);
      expect(download.headers['x-injected']).toBeUndefined();
    });

    it.each(LINKS)("finding 2: linking someone else's attachment by %s answers exactly like a missing key, and its bytes stay unreadable", async (_what, url, body) => {
      const before = await links();
      const missing = await mixed.post(url(ids), body(MISSING));
      const hidden = await mixed.post(url(ids), body(ids.secret));
      expect(missing.status, missing.text).toBeGreaterThanOrEqual(400);
      expect(shape(hidden, ids.secret)).toBe(shape(missing, MISSING));
      expect(await links()).toBe(before);
      const download = await content(ids.secret, mixedAuth);
      const absent = await content(MISSING, mixedAuth);
      expect(download.status).toBe(404);
      expect(download.raw.toString().replaceAll(String(ids.secret), '<key>')).toBe(absent.raw.toString().replaceAll(String(MISSING), '<key>'));
    });

    it('finding 2: a junction row naming the secret, imported or created, is refused like a missing key', async () => {
      const before = await links();
      const junction = ctx.built.schema.snapshot.get('notes_files')!;
      const [source, target] = [...junction.linkColumns.keys()];
      const named = await mixed.post('/api/notes_files:create', { [source!]: ids.note, [target!]: ids.secret });
      const missing = await mixed.post('/api/notes_files:create', { [source!]: ids.note, [target!]: MISSING });
      expect(missing.status, missing.text).toBe(409);
      expect(shape(named, ids.secret)).toBe(shape(missing, MISSING));
      const imported = await importCsv(ctx.built, mixedAuth, '/api/notes_files:import', `${source},${target}\r\n${ids.note},${ids.secret}\r\n`);
      expect(imported.status, imported.text).toBe(400);
      expect(await links()).toBe(before);
      expect((await content(ids.secret, mixedAuth)).status).toBe(404);
    });

    describe('finding 1 side effect: a field\'s accept list holds on every link path', () => {
      let html: number;
      let png: number;
      let junction: { source: string; target: string };
      const covers = async (): Promise<string> => JSON.stringify((await ctx.api.get('/api/notes:list?paginate=false&sort=id&appends=cover&fields=id')).body.data);

      beforeAll(async () => {
        const page = await upload(ctx.built, '/api/attachments:create', mixedAuth, { bytes: HTML, filename: 'cover.png', type: 'image/png' });
        expect(page.status, page.raw.toString()).toBe(201);
        expect(page.json.data.mimetype).toBe('text/html');
        html = page.json.data.id;
        const image = await upload(ctx.built, '/api/attachments:create', mixedAuth, { bytes: PNG, filename: 'real.png', type: 'image/png' });
        expect(image.status, image.raw.toString()).toBe(201);
        expect(image.json.data.mimetype).toBe('image/png');
        png = image.json.data.id;
        const columns = [...ctx.built.schema.snapshot.get('notes_cover')!.linkColumns.keys()];
        junction = { source: columns[0]!, target: columns[1]! };
      });

      const refused = (reply: Reply): void => {
        expect(reply.status, reply.text).toBe(415);
        expect(reply.body.errors[0].code).toBe('FILE_TYPE_NOT_ALLOWED');
        expect(reply.body.errors[0].details).toEqual({ accept: ['image/*'], detected: 'text/html' });
      };

      it.each(COVER_LINKS)('linking an HTML attachment into cover by %s is 415, nothing written', async (_what, url, body) => {
        const before = [await covers(), await rows()];
        refused(await mixed.post(url(ids), body(html)));
        expect([await covers(), await rows()]).toEqual(before);
      });

      it('root is held to the accept list too (cover:set, a nested key)', async () => {
        const before = await covers();
        refused(await ctx.api.post(`/api/notes/${ids.note}/cover:set`, [html]));
        refused(await ctx.api.post('/api/notes:create', { title: 'root cover', cover: [html] }));
        expect(await covers()).toBe(before);
      });

      it('a junction row of cover naming the HTML attachment, created, updated or imported, is refused', async () => {
        const before = await covers();
        refused(await mixed.post('/api/notes_cover:create', { [junction.source]: ids.note, [junction.target]: html }));
        refused(await ctx.api.post('/api/notes_cover:create', { [junction.source]: ids.note, [junction.target]: html }));
        const imported = await importCsv(ctx.built, mixedAuth, '/api/notes_cover:import', `${junction.source},${junction.target}\r\n${ids.note},${html}\r\n`);
        expect(imported.status, imported.text).toBeGreaterThanOrEqual(400);
        expect(imported.text).toContain('FILE_TYPE_NOT_ALLOWED');
        expect(await covers()).toBe(before);
        const linked = await ctx.api.post('/api/notes_cover:create', { [junction.source]: ids.note, [junction.target]: png });
        expect(linked.status, linked.text).toBe(201);
        const after = await covers();
        refused(await ctx.api.post(`/api/notes_cover:update?filter=${encodeURIComponent(JSON.stringify({ [junction.source]: ids.note }))}`, { [junction.target]: html }));
        expect(await covers()).toBe(after);
        expect((await ctx.api.post(`/api/notes/${ids.note}/cover:set`, [])).status).toBe(200);
      });

      it('an attachment of an accepted type links on every path, and a field without accept takes any type', async () => {
        const set = await mixed.post(`/api/notes/${ids.note}/cover:set`, [png]);
        expect(set.status, set.text).toBe(200);
        const nested = await mixed.post('/api/notes:create', { title: 'png cover', cover: [{ id: png }] });
        expect(nested.status, nested.text).toBe(201);
        const files = await mixed.post(`/api/notes/${ids.note}/files:add`, [html]);
        expect(files.status, files.text).toBe(200);
        const shown = await ctx.api.get(`/api/notes/${ids.note}?appends=cover,files`);
        expect(shown.body.data.cover.map((file: { id: number }) => file.id)).toEqual([png]);
        expect(shown.body.data.files.map((file: { id: number }) => file.id)).toContain(html);
        expect((await mixed.post(`/api/notes/${ids.note}/files:remove`, [html])).status).toBe(200);
        expect((await mixed.post(`/api/notes/${ids.note}/cover:set`, [])).status).toBe(200);
      });
    });

    it('finding 3: a hidden attachment field hides its files; a role that sees the field downloads them', async () => {
      const note = await ctx.api.post('/api/notes:create', { title: 'shared' });
      const up = await upload(ctx.built, `/api/notes/${note.body.data.id}/files:create`, root, { bytes: Buffer.from('shared words\n'), filename: 'shared.txt', type: 'text/plain' });
      expect(up.status, up.raw.toString()).toBe(201);
      const id = up.json.data.id as number;
      expect((await send(ctx.built, 'GET', '/api/notes:list?appends=files', as.titleonly!)).status).toBe(403);
      expect((await content(id, as.titleonly!)).status).toBe(404);
      expect((await send(ctx.built, 'GET', `/api/attachments/${id}`, as.titleonly!)).status).toBe(404);
      const full = await content(id, as.fullview!);
      expect(full.status).toBe(200);
      expect(full.raw.toString()).toBe('shared words\n');
      expect((await content(id, as.mixed!)).status).toBe(404);
      expect((await content(id, root)).status).toBe(200);
      // A grant on attachments neither widens nor narrows the rows (its field list narrows the fields): the owning row decides.
      expect((await content(id, as.ownfiles!)).status).toBe(200);
      const listed = await send(ctx.built, 'GET', `/api/attachments:list?filter=${encodeURIComponent(JSON.stringify({ id }))}`, as.ownfiles!);
      expect(listed.json.data).toEqual([{ id, filename: 'shared.txt' }]);
      expect((await content(ids.secret, as.ownfiles!)).status).toBe(404);
    });

    it('uploads still work: an own unlinked upload reads, linked to an own note it still reads, and root reads everything', async () => {
      const up = await upload(ctx.built, '/api/attachments:create', mixedAuth, { bytes: Buffer.from('later linked\n'), filename: 'later.txt', type: 'text/plain' });
      expect(up.status, up.raw.toString()).toBe(201);
      const id = up.json.data.id as number;
      expect(up.json.data).toMatchObject({ mimetype: 'text/plain', size: 13, storage: 'local' });
      expect((await content(id, mixedAuth)).status).toBe(200);
      // Unlinked: its uploader's only (and root's), a download by anyone else is a missing row.
      for (const other of [as.fullview!, as.titleonly!]) {
        expect((await content(id, other)).status).toBe(404);
        expect((await send(ctx.built, 'GET', `/api/attachments/${id}`, other)).status).toBe(404);
      }
      expect((await content(id, root)).status).toBe(200);
      const linked = await mixed.post(`/api/notes/${ids.note}/files:add`, [id]);
      expect(linked.status, linked.text).toBe(200);
      expect((await content(id, mixedAuth)).status).toBe(200);
      expect((await content(id, as.fullview!)).status).toBe(200);
      expect((await content(id, as.titleonly!)).status).toBe(404);
      const direct = await upload(ctx.built, `/api/notes/${ids.note}/files:create`, mixedAuth, { bytes: Buffer.from('direct\n'), filename: 'direct.txt', type: 'text/plain' });
      expect(direct.status, direct.raw.toString()).toBe(201);
      expect((await content(direct.json.data.id, mixedAuth)).status).toBe(200);
      expect((await content(ids.secret, root)).raw.equals(secretBytes)).toBe(true);
    });
  });
}

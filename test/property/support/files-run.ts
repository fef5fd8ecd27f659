import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { BuiltApp } from '../../../src/app.js';
import { envelopeProblem } from '../../fuzz/support/envelope.js';
import { multipartBody, PNG } from '../../support/multipart.js';
import type { Reply, TestApi } from '../../support/test-app.js';
import { filesScenarioArb, type FilesAction, type FilesScenario, type Pick } from './files-arbitraries.js';
import { fieldListed, inScope, OWNER_FIELDS, readable, readFilesWorld, roleBody, SERVER_MANAGED, SYSTEM, type FilesGrant, type FilesWorld, type Owner, type Row } from './files-world.js';

/** FILES_SEED / FILES_RUNS / FILES_PATH (see the test's doc comment). */
const env = process.env;
export const FILES_SEED = env.FILES_SEED === undefined ? 37_2026 : Number(env.FILES_SEED);
export const FILES_RUNS = env.FILES_RUNS === undefined ? 10 : Number(env.FILES_RUNS);
const FILES_PATH = env.FILES_PATH;
const ME = { account: 'files-prop@corral.test', password: 'files-prop-password-1' };
const OTHER = { account: 'files-other@corral.test', password: 'files-other-password-1' };
const MISSING = 900_000;
const EVERYTHING = encodeURIComponent(JSON.stringify({ id: { $gt: 0 } }));

/** What an upload set: the values every later reading of the row must still show. */
type Uploaded = Record<(typeof SERVER_MANAGED)[number], unknown>;

export class FilesHarness {
  readonly uploads = new Map<number, Uploaded>();
  readonly outcomes = new Map<string, number>();
  tokens: Record<'me' | 'other', string> = { me: '', other: '' };
  roles = 0;
  requests = 0;
  /** Downloads the oracle allowed and refused: both must occur, or the property proved little. */
  served = 0;
  hidden = 0;
  readonly samples = new Map<string, string>();
  scenarios = 0;
  systemShapes = new Map<string, string>();
  constructor(readonly built: BuiltApp, readonly root: TestApi, readonly rootHeaders: Record<string, string>, readonly userId: number) {}

  async signIn(who: 'me' | 'other'): Promise<void> {
    const reply = await this.built.app.inject({ method: 'POST', url: '/api/auth:signIn', payload: who === 'me' ? ME : OTHER });
    if (reply.statusCode !== 200) throw new Error(`sign-in of ${who} failed: ${reply.statusCode} ${reply.body}`);
    this.tokens[who] = (JSON.parse(reply.body) as { data: { token: string } }).data.token;
  }

  headers(who: 'me' | 'other' | 'root'): Record<string, string> {
    return who === 'root' ? this.rootHeaders : { authorization: `Bearer ${this.tokens[who]}` };
  }

  /** One request; `body` is JSON unless it is a multipart body already encoded. */
  async send(who: 'me' | 'other' | 'root', method: string, url: string, body?: unknown, multipart?: { body: Buffer; contentType: string }): Promise<Reply & { raw: Buffer }> {
    if (who === 'me') this.requests += 1;
    const headers = { ...this.headers(who), ...(multipart !== undefined ? { 'content-type': multipart.contentType } : body !== undefined ? { 'content-type': 'application/json' } : {}) };
    const payload = multipart !== undefined ? multipart.body : body !== undefined ? JSON.stringify(body) : undefined;
    const response = await this.built.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
    let parsed: unknown;
    try {
      parsed = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body, raw: response.rawPayload };
  }

  /** Every system collection's definition as root reads it: never to change. */
  async shapes(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const [collection] of SYSTEM) {
      const reply = await this.root.get(`/api/collections/${collection}`);
      const fields = await this.root.get(`/api/collections/${collection}/fields?paginate=false`);
      found.set(collection, `${reply.status} ${JSON.stringify(reply.body?.data)} ${fields.status} ${JSON.stringify(fields.body?.data)}`);
    }
    return found;
  }
}

export async function setUpFilesHarness(built: BuiltApp, root: TestApi): Promise<FilesHarness> {
  await root.collection({ name: 'notes', fields: [{ name: 'title', type: 'string' }, { name: 'rank', type: 'integer' }, { name: 'files', type: 'attachment' }, { name: 'pics', type: 'attachment', accept: ['image/*'] }] });
  await root.collection({ name: 'memos', fields: [{ name: 'label', type: 'string' }, { name: 'files', type: 'attachment' }] });
  const other = await root.post('/api/roles:create', { name: 'files_other', strategy: { actions: ['view', 'create', 'update'] } });
  if (other.status !== 201) throw new Error(`roles:create files_other: ${other.status} ${other.text}`);
  const me = await root.post('/api/users:create', { email: ME.account, password: ME.password, roles: [] });
  const them = await root.post('/api/users:create', { email: OTHER.account, password: OTHER.password, roles: ['files_other'] });
  if (me.status !== 201 || them.status !== 201) throw new Error(`users:create: ${me.status} ${me.text} ${them.status} ${them.text}`);
  const h = new FilesHarness(built, root, await root.authHeaders(), Number(me.body.data.id));
  await h.signIn('other');
  h.systemShapes = await h.shapes();
  return h;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const fileBytes = (image: boolean): Buffer => (image ? Buffer.concat([PNG, randomBytes(8)]) : Buffer.from(`text ${randomBytes(12).toString('hex')}\n`));
const csv = (rows: unknown[][]): Buffer => Buffer.from(rows.map((row) => row.map((cell) => `"${String(cell).replaceAll('"', '""')}"`).join(',')).join('\r\n') + '\r\n');

interface Step {
  readonly reply: (Reply & { raw: Buffer }) | undefined;
  readonly sent: string;
  /** Attachments this step uploaded as the caller (a link to them needs no earlier right to read). */
  readonly uploadedNow: readonly number[];
  /** An unreadable attachment key the request named to link it, and the request again with a missing key. */
  readonly linkProbe?: { readonly again: () => Promise<Reply> };
  /** Root's snapshot differs from the one the last downloads were checked against (set by the run). */
  worldChanged?: boolean;
}

function pickAtt(h: FilesHarness, world: FilesWorld, grant: FilesGrant, pick: Pick): { id: number; row: Row | undefined } {
  const all = [...world.attachments.values()];
  const pool =
    pick.pool === 'any' ? all : pick.pool === 'mine' ? all.filter((row) => Number(row.createdById) === h.userId) : all.filter((row) => readable(world, grant, h.userId, Number(row.id)) === (pick.pool === 'readable'));
  if (pool.length === 0) return { id: MISSING + pick.n, row: undefined };
  const row = pool[pick.n % pool.length]!;
  return { id: Number(row.id), row };
}
const pickRow = (world: FilesWorld, owner: Owner, n: number): number => {
  const keys = [...world[owner].keys()];
  return keys.length === 0 ? MISSING + n : keys[n % keys.length]!;
};
/** The values a forger copies from a victim row (or invents when there is none). */
const forged = (victim: Row | undefined, mimetype = 'image/png'): Row => ({
  filename: 'forged.png',
  extname: '.png',
  mimetype,
  size: victim?.size ?? 18,
  sha256: victim?.sha256 ?? 'f'.repeat(64),
  storage: victim?.storage ?? 'local',
  path: victim?.path ?? `ff/ff/${'f'.repeat(64)}`,
  url: victim?.url ?? '/api/attachments/1/content',
});

async function upload(h: FilesHarness, who: 'me' | 'other' | 'root', url: string, image: boolean): Promise<{ reply: Reply & { raw: Buffer }; id?: number }> {
  const bytes = fileBytes(image);
  const reply = await h.send(who, 'POST', url, undefined, await multipartBody([{ bytes, filename: image ? 'p.png' : 't.txt' }]));
  if (reply.status !== 201) return { reply };
  const id = Number(reply.body.data.id);
  // The hash and size are the bytes'; the rest is what the upload stored, read by root (the caller's
  // answer shows the key alone when the upload went straight to a row it cannot view).
  const stored = await h.root.get(`/api/attachments/${id}`);
  if (stored.status !== 200) throw new Error(`root cannot read uploaded attachment ${id}: ${stored.status} ${stored.text}`);
  const data = stored.body.data as Row;
  h.uploads.set(id, { ...(Object.fromEntries(SERVER_MANAGED.map((f) => [f, data[f]])) as Uploaded), sha256: sha256(bytes), size: bytes.length });
  return { reply, id };
}

/** Runs one action; setup actions (by root or the other user) return no reply to judge. */
async function perform(h: FilesHarness, grant: FilesGrant, world: FilesWorld, action: FilesAction): Promise<Step> {
  const me = (method: string, url: string, body?: unknown, multipart?: { body: Buffer; contentType: string }) => h.send('me', method, url, body, multipart);
  const fieldOf = (owner: Owner, field: 'files' | 'pics') => (owner === 'memos' ? 'files' : field);
  const step = (reply: Reply & { raw: Buffer }, sent: string, extra: Partial<Step> = {}): Step => ({ reply, sent: `${sent} → ${reply.status} ${reply.text.slice(0, 200)}`, uploadedNow: [], ...extra });
  switch (action.kind) {
    case 'upload': {
      const { reply, id } = await upload(h, action.by, '/api/attachments:create', action.image);
      if (action.by !== 'me') {
        if (id === undefined) throw new Error(`upload by ${action.by} failed: ${reply.status} ${reply.text}`);
        return { reply: undefined, sent: `(${action.by} uploads attachment ${id})`, uploadedNow: [] };
      }
      return step(reply, 'POST /api/attachments:create (multipart)', { uploadedNow: id === undefined ? [] : [id] });
    }
    case 'uploadThrough': {
      const url = `/api/notes/${pickRow(world, 'notes', action.note)}/${action.field}:create`;
      const { reply, id } = await upload(h, 'me', url, action.image);
      return step(reply, `POST ${url} (multipart)`, { uploadedNow: id === undefined ? [] : [id] });
    }
    case 'rootNote': {
      const links = [...new Set(action.links.map((pick) => pickAtt(h, world, grant, pick)).filter((a) => a.row !== undefined).map((a) => a.id))];
      const body = action.owner === 'notes' ? { title: action.title, rank: action.rank, files: links } : { label: action.title, files: links };
      const reply = await h.send('root', 'POST', `/api/${action.owner}:create`, body);
      if (reply.status !== 201) throw new Error(`root ${action.owner}:create failed: ${reply.status} ${reply.text}`);
      return { reply: undefined, sent: `(root creates ${action.owner} ${JSON.stringify(body)})`, uploadedNow: [] };
    }
    case 'rootUnlink': {
      const row = pickRow(world, action.owner, action.row);
      const att = pickAtt(h, world, grant, action.att).id;
      await h.send('root', 'POST', `/api/${action.owner}/${row}/files:remove`, [att]);
      return { reply: undefined, sent: `(root unlinks attachment ${att} from ${action.owner} ${row})`, uploadedNow: [] };
    }
    case 'forgeRow': {
      const victim = pickAtt(h, world, grant, action.victim).row;
      const url = `/api/attachments:${action.action}${action.action === 'create' ? '' : `?filterKeys=${action.filterKeys}`}`;
      const body = forged(victim, action.mimetype);
      return step(await me('POST', url, body), `POST ${url} ${JSON.stringify(body)}`);
    }
    case 'forgeUpdate': {
      const target = pickAtt(h, world, grant, action.target).id;
      const body = { ...forged(pickAtt(h, world, grant, action.victim).row, 'text/html'), filename: 'renamed.txt' };
      const url = `/api/attachments:update?filterByTk=${target}`;
      return step(await me('POST', url, body), `POST ${url} ${JSON.stringify(body)}`);
    }
    case 'nestedCreate':
    case 'nestedUpdate': {
      const field = fieldOf(action.owner, action.field);
      const att = pickAtt(h, world, grant, action.att);
      const value =
        action.how === 'forged' ? forged(att.row) : action.how === 'id' ? att.id : action.how === 'idObject' ? { id: att.id } : { ...forged(att.row, 'text/html'), id: action.kind === 'nestedUpdate' ? pickAtt(h, world, grant, action.target).id : att.id };
      const linksUnreadable = (action.how === 'id' || action.how === 'idObject') && att.row !== undefined && !readable(world, grant, h.userId, att.id);
      const missingValue = action.how === 'id' ? MISSING : { id: MISSING };
      const columns = action.owner === 'notes' ? { title: 'mine', rank: action.kind === 'nestedCreate' ? action.rank : undefined } : { label: 'mine' };
      const url =
        action.kind === 'nestedCreate'
          ? `/api/${action.owner}:create?updateAssociationValues=${field}`
          : `/api/${action.owner}:update?filterByTk=${pickRow(world, action.owner, action.row)}&updateAssociationValues=${field}`;
      const body = (v: unknown) => (action.kind === 'nestedCreate' ? { ...columns, [field]: [v] } : { [field]: [v] });
      return step(await me('POST', url, body(value)), `POST ${url} ${JSON.stringify(body(value))}`, linksUnreadable ? { linkProbe: { again: () => me('POST', url, body(missingValue)) } } : {});
    }
    case 'assocCreate': {
      const url = `/api/notes/${pickRow(world, 'notes', action.note)}/${action.field}:create`;
      const body = forged(pickAtt(h, world, grant, action.victim).row);
      return step(await me('POST', url, body), `POST ${url} ${JSON.stringify(body)}`);
    }
    case 'assocLink': {
      const field = fieldOf(action.owner, action.field);
      const att = pickAtt(h, world, grant, action.att);
      const url = `/api/${action.owner}/${pickRow(world, action.owner, action.row)}/${field}:${action.verb}`;
      const unreadable = att.row !== undefined && !readable(world, grant, h.userId, att.id);
      return step(await me('POST', url, [att.id]), `POST ${url} [${att.id}]`, unreadable ? { linkProbe: { again: () => me('POST', url, [MISSING]) } } : {});
    }
    case 'importAttachments': {
      const v = forged(pickAtt(h, world, grant, action.victim).row, 'text/plain');
      const file = csv([['filename', 'mimetype', 'size', 'sha256', 'storage', 'path'], ['imported.txt', v.mimetype, v.size, v.sha256, v.storage, v.path]]);
      const url = action.through === undefined ? '/api/attachments:import' : `/api/notes/${pickRow(world, 'notes', action.through)}/files:import`;
      return step(await me('POST', url, undefined, await multipartBody([{ bytes: file, filename: 'a.csv', type: 'text/csv' }])), `POST ${url} (csv ${file.toString().trim()})`);
    }
    case 'importOwners': {
      const att = pickAtt(h, world, grant, action.att);
      const file = action.owner === 'notes' ? csv([['title', 'rank', 'files'], ['imported', action.rank, att.id]]) : csv([['label', 'files'], ['imported', att.id]]);
      const url = `/api/${action.owner}:import`;
      return step(await me('POST', url, undefined, await multipartBody([{ bytes: file, filename: 'o.csv', type: 'text/csv' }])), `POST ${url} (csv ${file.toString().trim()})`);
    }
    case 'rank': {
      const url = `/api/notes:update?filterByTk=${pickRow(world, 'notes', action.row)}`;
      return step(await me('POST', url, { rank: action.rank }), `POST ${url} {"rank":${action.rank}}`);
    }
    case 'system': {
      const [collection, field] = SYSTEM[action.target]!;
      const [method, url, body] =
        action.how === 'drop'
          ? ['DELETE', `/api/collections/${collection}`, undefined]
          : action.how === 'dropByFilter'
            ? ['POST', `/api/collections:destroy?filterByTk=${collection}`, undefined]
            : action.how === 'dropField'
              ? ['DELETE', `/api/collections/${collection}/fields/${field}`, undefined]
              : action.how === 'rename'
                ? ['PUT', `/api/collections/${collection}`, { name: `${collection}_x` }]
                : ['PUT', `/api/collections/${collection}/fields/${field}`, { type: 'integer' }];
      const reply = await h.send(action.by, method, url, body);
      return step(reply, `${action.by === 'root' ? '(as root) ' : ''}${method} ${url}${body === undefined ? '' : ` ${JSON.stringify(body)}`}`);
    }
  }
}

type Link = readonly [Owner, string, number, number];
const linksOf = (world: FilesWorld): Link[] => OWNER_FIELDS.flatMap(([owner, field]) => [...world[owner]].flatMap(([row, entry]) => entry.links[field]!.map((att): Link => [owner, field, row, att])));
const linkKey = (link: Link): string => link.join(':');

/** What the oracle finds wrong after one of the caller's steps. */
async function judge(h: FilesHarness, grant: FilesGrant, action: FilesAction, step: Step, before: FilesWorld, after: FilesWorld): Promise<string[]> {
  const problems: string[] = [];
  const reply = step.reply!;
  const envelope = envelopeProblem('POST', reply);
  if (envelope !== undefined) problems.push(`answer breaks the contract: ${envelope}`);
  // Server-managed values: every row was made by an upload and still shows what the upload set.
  for (const [id, row] of after.attachments) {
    const uploaded = h.uploads.get(id);
    if (uploaded === undefined) {
      problems.push(`attachment ${id} exists but no upload made it: ${JSON.stringify(row)}`);
      continue;
    }
    for (const field of SERVER_MANAGED) if (JSON.stringify(row[field]) !== JSON.stringify(uploaded[field])) problems.push(`attachment ${id}.${field} is ${JSON.stringify(row[field])}, the upload set ${JSON.stringify(uploaded[field])}`);
  }
  // An upload is the uploader's row, stored under its content key (docs/files.md: `ab/cd/<sha256>`).
  for (const id of step.uploadedNow) {
    const sha = String(h.uploads.get(id)?.sha256);
    if (after.attachments.get(id)?.path !== `${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`) problems.push(`attachment ${id} is stored at ${String(after.attachments.get(id)?.path)}, not under the hash of its bytes`);
  }
  for (const id of step.uploadedNow) if (Number(after.attachments.get(id)?.createdById) !== h.userId) problems.push(`attachment ${id}, uploaded by the caller, has createdById ${String(after.attachments.get(id)?.createdById)}`);
  // Links: a new one needs the attachment readable before (or uploaded by this very request) and the row writable.
  const was = new Set(linksOf(before).map(linkKey));
  const now = new Set(linksOf(after).map(linkKey));
  for (const link of linksOf(after)) {
    if (was.has(linkKey(link))) continue;
    const [owner, field, row, att] = link;
    if (!step.uploadedNow.includes(att) && !readable(before, grant, h.userId, att)) problems.push(`${owner} ${row}.${field} now links attachment ${att}, which the caller could not read`);
    const old = before[owner].get(row);
    const writable = old === undefined ? fieldListed(grant[owner].create, field) : inScope(grant[owner].update, old.row) && fieldListed(grant[owner].update, field);
    if (!writable) problems.push(`${owner} ${row}.${field} linked attachment ${att} without a grant to write ${field} there`);
  }
  for (const link of linksOf(before)) {
    if (now.has(linkKey(link))) continue;
    const [owner, field, row, att] = link;
    const old = before[owner].get(row)!;
    if (after[owner].has(row) && !(inScope(grant[owner].update, old.row) && fieldListed(grant[owner].update, field))) problems.push(`${owner} ${row}.${field} lost attachment ${att} without a grant to write ${field} there`);
  }
  // An unreadable attachment named for a link answers like a missing one.
  if (step.linkProbe !== undefined && reply.status >= 400 && linksOf(after).length === linksOf(before).length) {
    const other = await step.linkProbe.again();
    const code = (r: Reply) => `${r.status} ${String(r.body?.errors?.[0]?.code)}`;
    if (code(other) !== code(reply)) problems.push(`naming an unreadable attachment answers ${code(reply)}, a missing one ${code(other)}`);
  }
  // The bytes and rows of every attachment: readable exactly when the oracle says so (the grant is
  // fixed for the scenario, so only a changed world can change the answers: a refused request is not read again).
  if (!step.worldChanged) return problems.concat(await systemProblems(h, action, reply));
  for (const [id] of after.attachments) {
    const content = await h.send('me', 'GET', `/api/attachments/${id}/content`);
    const may = readable(after, grant, h.userId, id);
    if (content.status >= 500) problems.push(`GET /api/attachments/${id}/content → ${content.status}`);
    else if (may && content.status !== 200) problems.push(`the caller may read attachment ${id} but its content answers ${content.status} ${content.text.slice(0, 200)}`);
    else if (!may && (content.status !== 404 || content.body?.errors?.[0]?.code !== 'RECORD_NOT_FOUND')) problems.push(`the caller may not read attachment ${id} but its content answers ${content.status}${content.status === 200 ? '' : ` ${content.text.slice(0, 200)}`}`);
    else if (content.status === 200 && sha256(content.raw) !== h.uploads.get(id)?.sha256) problems.push(`attachment ${id}'s content is not the bytes its upload sent`);
    if (may) h.served += 1;
    else h.hidden += 1;
  }
  // Appended attachment rows (where the grant lets the caller append the field) are readable ones too.
  for (const [owner, field] of OWNER_FIELDS) {
    const appended = await h.send('me', 'GET', `/api/${owner}:list?paginate=false&appends=${field}`);
    if (appended.status >= 500) problems.push(`GET /api/${owner}:list?appends=${field} → ${appended.status}`);
    if (appended.status !== 200) continue;
    for (const row of appended.body.data as Row[]) {
      const ids = Array.isArray(row[field]) ? (row[field] as Row[]).map((att) => Number(att.id)) : [];
      for (const id of ids) if (!readable(after, grant, h.userId, id)) problems.push(`${owner} ${String(row.id)} appends attachment ${id} through ${field}, which the caller may not read`);
    }
  }
  if (grant.strategy.includes('view')) {
    const list = await h.send('me', 'GET', '/api/attachments:list?paginate=false&sort=id');
    const want = [...after.attachments.keys()].filter((id) => readable(after, grant, h.userId, id));
    const got = list.status === 200 ? (list.body.data as Row[]).map((row) => Number(row.id)) : undefined;
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`attachments:list shows ${JSON.stringify(got ?? `${list.status} ${list.text.slice(0, 200)}`)}, the oracle ${JSON.stringify(want)}`);
  }
  return problems.concat(await systemProblems(h, action, reply));
}

/** A destructive call on a system collection: refused (409 for root's drops), every system collection as it was. */
async function systemProblems(h: FilesHarness, action: FilesAction, reply: Reply): Promise<string[]> {
  const problems: string[] = [];
  if (action.kind === 'system') {
    if (reply.status < 400) problems.push(`a destructive call on a system collection succeeded: ${reply.status}`);
    if (action.by === 'root' && action.how !== 'rename' && action.how !== 'reshapeField' && reply.status !== 409) problems.push(`root dropping a system collection or field answers ${reply.status}, not 409`);
    const shapes = await h.shapes();
    for (const [collection, shape] of h.systemShapes) if (shapes.get(collection) !== shape) problems.push(`system collection ${collection} changed shape:\n      before ${shape.slice(0, 300)}\n      after  ${shapes.get(collection)?.slice(0, 300)}`);
  }
  return problems;
}

async function resetFiles(h: FilesHarness): Promise<void> {
  for (const collection of ['notes', 'memos', 'attachments']) {
    const reply = await h.root.post(`/api/${collection}:destroy?filter=${EVERYTHING}`);
    if (reply.status !== 200) throw new Error(`resetting ${collection} failed: ${reply.status} ${reply.text}`);
  }
  h.uploads.clear();
}

/** The rows every scenario starts from: files of root, of the other user and of the caller; notes and a memo linking some. */
const SEED_ACTIONS: readonly FilesAction[] = [
  { kind: 'upload', by: 'root', image: false },
  { kind: 'upload', by: 'root', image: true },
  { kind: 'upload', by: 'other', image: false },
  { kind: 'upload', by: 'me', image: false },
  { kind: 'rootNote', owner: 'notes', rank: 2, title: 'a', links: [{ pool: 'any', n: 0 }] },
  { kind: 'rootNote', owner: 'notes', rank: 7, title: 'hidden', links: [{ pool: 'any', n: 1 }] },
  { kind: 'rootNote', owner: 'memos', rank: 0, title: 'hidden', links: [{ pool: 'any', n: 0 }, { pool: 'any', n: 1 }] },
];

async function runScenario(h: FilesHarness, scenario: FilesScenario): Promise<string[]> {
  h.scenarios += 1;
  h.roles += 1;
  const name = `files_prop_${h.roles}`;
  const role = await h.root.post('/api/roles:create', roleBody(name, scenario.grant));
  if (role.status !== 201) throw new Error(`roles:create refused the generated grant: ${role.status} ${role.text}\n${JSON.stringify(roleBody(name, scenario.grant))}`);
  const user = await h.root.post(`/api/users:update?filterByTk=${h.userId}`, { roles: [name] });
  if (user.status !== 200) throw new Error(`users:update failed: ${user.status} ${user.text}`);
  await h.signIn('me');
  await resetFiles(h);
  let world = await readFilesWorld(h.root);
  for (const action of SEED_ACTIONS) {
    // Only a link needs the rows uploaded before it.
    if (action.kind === 'rootNote') world = await readFilesWorld(h.root);
    await perform(h, scenario.grant, world, action);
  }
  world = await readFilesWorld(h.root);
  const sent: string[] = [];
  let checked = '';
  for (const action of scenario.actions) {
    const step = await perform(h, scenario.grant, world, action);
    sent.push(step.sent);
    const after = await readFilesWorld(h.root);
    if (step.reply !== undefined) {
      const outcome = `${action.kind} ${step.reply.status}${step.reply.status >= 400 ? ` ${String(step.reply.body?.errors?.[0]?.code)}` : ''}`;
      h.outcomes.set(outcome, (h.outcomes.get(outcome) ?? 0) + 1);
      if (env.FILES_SAMPLES === '1' && !h.samples.has(outcome)) h.samples.set(outcome, step.sent);
      step.worldChanged = JSON.stringify([...after.attachments, ...after.notes, ...after.memos]) !== checked;
      if (step.worldChanged) checked = JSON.stringify([...after.attachments, ...after.notes, ...after.memos]);
      const problems = await judge(h, scenario.grant, action, step, world, after);
      if (problems.length > 0) return [...problems, `request: ${step.sent}`, `requests before it:\n    ${sent.slice(0, -1).join('\n    ')}`];
    }
    world = after;
  }
  return [];
}

export async function checkFiles(label: string, h: FilesHarness): Promise<void> {
  const started = performance.now();
  const property = fc.asyncProperty(filesScenarioArb, async (scenario) => {
    const found = await runScenario(h, scenario);
    if (found.length > 0) throw new Error(`${found.join('\n  ')}\n  grant: ${JSON.stringify(roleBody('r', scenario.grant))}`);
  });
  const details = await fc.check(property, { seed: FILES_SEED, numRuns: FILES_RUNS, ...(FILES_PATH === undefined ? {} : { path: FILES_PATH }), endOnFailure: FILES_PATH !== undefined || env.FILES_SHRINK === '0' });
  console.log(`[files ${label}] ${h.scenarios} scenarios, ${h.requests} requests as the caller in ${((performance.now() - started) / 1000).toFixed(1)} s, seed ${FILES_SEED}; outcomes ${JSON.stringify(Object.fromEntries([...h.outcomes].sort(([a], [b]) => a.localeCompare(b))))}`);
  if (env.FILES_SAMPLES === '1') console.log([...h.samples].map(([k, v]) => `${k}: ${v}`).join('\n'));
  if (details.failed) {
    throw new Error(`files property on ${label} failed; reproduce with FILES_SEED=${FILES_SEED} FILES_PATH=${details.counterexamplePath ?? '?'} CORRAL_TEST_DIALECTS=${label}\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
  }
  if (h.served === 0 || h.hidden === 0) throw new Error(`files property on ${label}: downloads served ${h.served}, refused ${h.hidden}; both must occur`);
}

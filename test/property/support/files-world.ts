import type { TestApi } from '../../support/test-app.js';

/**
 * The files property's schema and oracle (docs/files.md "Who may download").
 *   notes  title, rank; files (attachment), pics (attachment, images only)
 *   memos  label; files (attachment)
 * Every attachment field is an owner of attachment rows; the caller's grants on notes and memos
 * (row filter and field list of `view`) decide which attachments it may read.
 */
export type Owner = 'notes' | 'memos';
export const OWNER_FIELDS: ReadonlyArray<readonly [Owner, string]> = [
  ['notes', 'files'],
  ['notes', 'pics'],
  ['memos', 'files'],
];
/** Plain columns a row filter or a field list may name, per owner. */
export const COLUMNS: Record<Owner, readonly string[]> = { notes: ['title', 'rank'], memos: ['label'] };
/** What an upload decides and no client may write (schema/system-rules.ts). */
export const SERVER_MANAGED = ['extname', 'mimetype', 'size', 'sha256', 'storage', 'path', 'url'] as const;
/** System collections (docs/errors.md COLLECTION_PROTECTED) and one built-in field of each. */
export const SYSTEM: ReadonlyArray<readonly [string, string]> = [
  ['users', 'email'],
  ['roles', 'name'],
  ['rolesResourcesScopes', 'scope'],
  ['attachments', 'path'],
  ['apiKeys', 'name'],
  ['webhooks', 'url'],
];

export type RowFilter = { readonly field: string; readonly op: '$gt' | '$lt' | '$ne'; readonly value: string | number };
export interface ViewGrant {
  readonly filter?: RowFilter;
  readonly fields?: readonly string[];
}
export interface OwnerGrant {
  readonly view?: ViewGrant;
  readonly create?: { readonly fields?: readonly string[] };
  readonly update?: ViewGrant;
}
/** The caller's role: `strategy` covers attachments (always `create`, so it can upload); notes and memos have resource grants. */
export interface FilesGrant {
  readonly strategy: readonly string[];
  readonly notes: OwnerGrant;
  readonly memos: OwnerGrant;
}

export function roleBody(name: string, grant: FilesGrant): Record<string, unknown> {
  const actions = (g: OwnerGrant) =>
    (['view', 'create', 'update'] as const).flatMap((action) => {
      const given = g[action];
      if (given === undefined) return [];
      const filter = 'filter' in given && given.filter !== undefined ? { [given.filter.field]: { [given.filter.op]: given.filter.value } } : undefined;
      return [{ name: action, ...(given.fields === undefined ? {} : { fields: given.fields }), ...(filter === undefined ? {} : { filter }) }];
    });
  return { name, strategy: { actions: grant.strategy }, resources: [{ name: 'notes', actions: actions(grant.notes) }, { name: 'memos', actions: actions(grant.memos) }] };
}

export type Row = Record<string, unknown>;
export interface FilesWorld {
  readonly attachments: Map<number, Row>;
  /** Owner rows with their links: `links[field]` the attachment keys. */
  readonly notes: Map<number, { row: Row; links: Record<string, number[]> }>;
  readonly memos: Map<number, { row: Row; links: Record<string, number[]> }>;
}

const keys = (value: unknown): number[] => (Array.isArray(value) ? value.map((item) => Number((item as Row).id)).sort((a, b) => a - b) : value !== null && value !== undefined ? [Number((value as Row).id)] : []);

/** Root's reading of every attachment, note and memo with its links: the oracle's truth. */
export async function readFilesWorld(root: TestApi): Promise<FilesWorld> {
  const [atts, notes, memos] = await Promise.all([root.get('/api/attachments:list?paginate=false&sort=id'), root.get('/api/notes:list?paginate=false&sort=id&appends=files,pics'), root.get('/api/memos:list?paginate=false&sort=id&appends=files')]);
  for (const reply of [atts, notes, memos]) if (reply.status !== 200) throw new Error(`root could not read the files world: ${reply.status} ${reply.text}`);
  const owners = (rows: Row[], fields: string[]) => new Map(rows.map((row) => [Number(row.id), { row, links: Object.fromEntries(fields.map((f) => [f, keys(row[f])])) }]));
  return {
    attachments: new Map((atts.body.data as Row[]).map((row) => [Number(row.id), row])),
    notes: owners(notes.body.data, ['files', 'pics']),
    memos: owners(memos.body.data, ['files']),
  };
}

function matches(filter: RowFilter | undefined, row: Row): boolean {
  if (filter === undefined) return true;
  const actual = row[filter.field];
  // Two-valued NULL (docs/querying.md): a positive test on NULL is false, a negative one true.
  if (actual === null || actual === undefined) return filter.op === '$ne';
  const a = actual as string | number;
  return filter.op === '$gt' ? a > filter.value : filter.op === '$lt' ? a < filter.value : a !== filter.value;
}

/** Whether the row is in the scope of `action` (undefined grant: refused). */
export const inScope = (given: ViewGrant | undefined, row: Row | undefined): boolean => given !== undefined && row !== undefined && matches(given.filter, row);
export const fieldListed = (given: { fields?: readonly string[] } | undefined, field: string): boolean => given !== undefined && (given.fields === undefined || given.fields.includes(field));

/** Whether any owner row links the attachment. */
export const isLinked = (world: FilesWorld, id: number): boolean =>
  OWNER_FIELDS.some(([owner, field]) => [...world[owner].values()].some((entry) => entry.links[field]!.includes(id)));

/**
 * The oracle: the caller may read attachment `id` (its bytes and its row) iff it can view a row
 * that owns it through an attachment field in its view field list, or it uploaded it and no row
 * links it.
 */
export function readable(world: FilesWorld, grant: FilesGrant, userId: number, id: number): boolean {
  const row = world.attachments.get(id);
  if (row === undefined) return false;
  const owned = OWNER_FIELDS.some(([owner, field]) => {
    const view = grant[owner].view;
    if (!fieldListed(view, field)) return false;
    return [...world[owner].values()].some((entry) => entry.links[field]!.includes(id) && inScope(view, entry.row));
  });
  return owned || (Number(row.createdById) === userId && !isLinked(world, id));
}

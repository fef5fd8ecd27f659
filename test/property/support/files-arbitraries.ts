import fc from 'fast-check';
import { COLUMNS, SYSTEM, type FilesGrant, type OwnerGrant, type RowFilter, type ViewGrant } from './files-world.js';

/**
 * The files property's random roles and actions. Rows are named by `Pick`s, resolved against
 * root's snapshot when the action runs: `unreadable` picks an attachment the caller may not read
 * (the attacker's target), `readable` one it may, `mine` one it uploaded.
 */
export type Pool = 'unreadable' | 'readable' | 'mine' | 'any';
export interface Pick {
  readonly pool: Pool;
  readonly n: number;
}
export type Who = 'me' | 'other' | 'root';
export type OrCreate = 'firstOrCreate' | 'updateOrCreate' | 'create';
/** How a nested attachment value is written: a forged row, a key, `{id}`, or `{id, path, …}` (with updateAssociationValues). */
export type Nested = 'forged' | 'id' | 'idObject' | 'idForged';

export type FilesAction =
  | { readonly kind: 'upload'; readonly by: Who; readonly image: boolean }
  | { readonly kind: 'uploadThrough'; readonly note: number; readonly field: 'files' | 'pics'; readonly image: boolean }
  | { readonly kind: 'rootNote'; readonly owner: 'notes' | 'memos'; readonly rank: number; readonly title: string; readonly links: readonly Pick[] }
  | { readonly kind: 'rootUnlink'; readonly owner: 'notes' | 'memos'; readonly row: number; readonly att: Pick }
  | { readonly kind: 'forgeRow'; readonly action: OrCreate; readonly victim: Pick; readonly filterKeys: string; readonly mimetype: string }
  | { readonly kind: 'forgeUpdate'; readonly target: Pick; readonly victim: Pick }
  | { readonly kind: 'nestedCreate'; readonly owner: 'notes' | 'memos'; readonly field: 'files' | 'pics'; readonly how: Nested; readonly att: Pick; readonly rank: number }
  | { readonly kind: 'nestedUpdate'; readonly owner: 'notes' | 'memos'; readonly row: number; readonly field: 'files' | 'pics'; readonly how: Nested; readonly att: Pick; readonly target: Pick }
  | { readonly kind: 'assocCreate'; readonly note: number; readonly field: 'files' | 'pics'; readonly victim: Pick }
  | { readonly kind: 'assocLink'; readonly owner: 'notes' | 'memos'; readonly row: number; readonly field: 'files' | 'pics'; readonly verb: 'add' | 'set'; readonly att: Pick }
  | { readonly kind: 'importAttachments'; readonly victim: Pick; readonly through?: number }
  | { readonly kind: 'importOwners'; readonly owner: 'notes' | 'memos'; readonly att: Pick; readonly rank: number }
  | { readonly kind: 'rank'; readonly row: number; readonly rank: number }
  | { readonly kind: 'system'; readonly by: 'me' | 'root'; readonly target: number; readonly how: 'drop' | 'dropField' | 'rename' | 'reshapeField' | 'dropByFilter' };

const n = fc.nat({ max: 50 });
const rank = fc.integer({ min: 0, max: 9 });
/** Attacks mostly aim at what the caller may not read. */
const attArb: fc.Arbitrary<Pick> = fc.record({ pool: fc.constantFrom<Pool>('unreadable', 'unreadable', 'unreadable', 'readable', 'mine', 'any'), n });
const fieldArb = fc.constantFrom<'files' | 'pics'>('files', 'files', 'pics');
const ownerArb = fc.constantFrom<'notes' | 'memos'>('notes', 'notes', 'memos');
/** A forged type: what `accept: ["image/*"]` lets in, HTML, a header injection. */
const mimeArb = fc.constantFrom('image/png', 'text/html', 'text/plain\r\nX-Injected: 1', 'application/octet-stream');

export const filesActionArb: fc.Arbitrary<FilesAction> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('upload' as const), by: fc.constantFrom<Who>('me', 'other', 'root'), image: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('uploadThrough' as const), note: n, field: fieldArb, image: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rootNote' as const), owner: ownerArb, rank, title: fc.constantFrom('a', 'hidden', 'b'), links: fc.array(fc.record({ pool: fc.constant<Pool>('any'), n }), { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rootUnlink' as const), owner: ownerArb, row: n, att: fc.record({ pool: fc.constant<Pool>('any'), n }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('forgeRow' as const), action: fc.constantFrom<OrCreate>('firstOrCreate', 'updateOrCreate', 'create'), victim: attArb, filterKeys: fc.constantFrom('filename', 'sha256', 'path'), mimetype: mimeArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forgeUpdate' as const), target: fc.record({ pool: fc.constantFrom<Pool>('mine', 'readable'), n }), victim: attArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('nestedCreate' as const), owner: ownerArb, field: fieldArb, how: fc.constantFrom<Nested>('forged', 'id', 'idObject', 'idForged'), att: attArb, rank }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nestedUpdate' as const), owner: ownerArb, row: n, field: fieldArb, how: fc.constantFrom<Nested>('forged', 'id', 'idObject', 'idForged'), att: attArb, target: fc.record({ pool: fc.constantFrom<Pool>('mine', 'readable'), n }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('assocCreate' as const), note: n, field: fieldArb, victim: attArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('assocLink' as const), owner: ownerArb, row: n, field: fieldArb, verb: fc.constantFrom<'add' | 'set'>('add', 'set'), att: attArb }) },
  // Straight into attachments, or through a note's attachment field (`/notes/<id>/files:import`, which would also link the rows).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('importAttachments' as const), victim: attArb, through: fc.option(n, { nil: undefined }) }, { requiredKeys: ['kind', 'victim'] }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('importOwners' as const), owner: ownerArb, att: attArb, rank }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rank' as const), row: n, rank }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('system' as const), by: fc.constantFrom<'me' | 'root'>('me', 'root', 'root'), target: fc.nat({ max: SYSTEM.length - 1 }), how: fc.constantFrom<'drop' | 'dropField' | 'rename' | 'reshapeField' | 'dropByFilter'>('drop', 'dropField', 'rename', 'reshapeField', 'dropByFilter') }) },
);

const filterArb = (owner: 'notes' | 'memos'): fc.Arbitrary<RowFilter> =>
  owner === 'notes'
    ? fc.oneof(rank.map((v): RowFilter => ({ field: 'rank', op: '$gt', value: v })), rank.map((v): RowFilter => ({ field: 'rank', op: '$lt', value: v })), fc.constant<RowFilter>({ field: 'title', op: '$ne', value: 'hidden' }))
    : fc.constant<RowFilter>({ field: 'label', op: '$ne', value: 'hidden' });

function ownerGrantArb(owner: 'notes' | 'memos'): fc.Arbitrary<OwnerGrant> {
  const all = owner === 'notes' ? [...COLUMNS.notes, 'files', 'pics'] : [...COLUMNS.memos, 'files'];
  // Field lists often leave out an attachment field: its files must then stay unreadable.
  const fields = fc.option(fc.subarray(all, { minLength: 1 }), { nil: undefined, freq: 2 });
  const scoped: fc.Arbitrary<ViewGrant> = fc.record({ filter: fc.option(filterArb(owner), { nil: undefined, freq: 2 }), fields }).map(({ filter, fields: f }) => ({ ...(filter === undefined ? {} : { filter }), ...(f === undefined ? {} : { fields: f }) }));
  // Writes are granted often, so most attacks reach the attachment checks instead of a plain 403.
  return fc
    .record({ view: fc.option(scoped, { nil: undefined, freq: 6 }), create: fc.option(fields.map((f) => (f === undefined ? {} : { fields: f })), { nil: undefined, freq: 5 }), update: fc.option(scoped, { nil: undefined, freq: 5 }) })
    .map((g) => Object.fromEntries(Object.entries(g).filter(([, v]) => v !== undefined)) as OwnerGrant);
}

export const filesGrantArb: fc.Arbitrary<FilesGrant> = fc.record({
  // `create` lets the caller upload; `view` (three in four) lets it list attachment rows, checked against the same oracle.
  strategy: fc.tuple(fc.constantFrom(true, true, true, false), fc.boolean()).map(([view, update]) => ['create', ...(view ? ['view'] : []), ...(update ? ['update'] : [])]),
  notes: ownerGrantArb('notes'),
  memos: ownerGrantArb('memos'),
});

export interface FilesScenario {
  readonly grant: FilesGrant;
  readonly actions: readonly FilesAction[];
}
export const filesScenarioArb: fc.Arbitrary<FilesScenario> = fc.record({ grant: filesGrantArb, actions: fc.array(filesActionArb, { minLength: 8, maxLength: 16 }) });

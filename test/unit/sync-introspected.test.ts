import { describe, expect, it } from 'vitest';
import { diffUnmanaged, isEmptyReport } from '../../src/schema/sync-introspected.js';
import type { CollectionDef, FieldDef } from '../../src/schema/types.js';

const field = (name: string, extra: Partial<FieldDef> = {}): FieldDef => ({ name, type: 'integer', allowNull: true, unique: false, index: false, ...extra });
const collection = (name: string, fields: FieldDef[], extra: Partial<CollectionDef> = {}): CollectionDef => ({
  name, managed: false, timestamps: false, autoGenId: false, idType: 'integer', filterTargetKey: fields[0]?.name ?? '', fields, relations: [], ...extra,
});

describe('the sync report', () => {
  it('lists collections added, removed and changed, with their fields and relations', () => {
    const before = [
      collection('album', [field('id', { primaryKey: true }), field('title'), field('year')]),
      collection('gone', [field('id')]),
      collection('same', [field('id')]),
      // Managed collections are not the sync's: never reported.
      { ...collection('posts', [field('id')]), managed: undefined } as CollectionDef,
    ];
    const after = [
      collection('album', [field('id', { primaryKey: true }), field('title', { type: 'text' }), field('rating')], {
        relations: [{ name: 'artist', type: 'belongsTo', target: 'artist', foreignKey: 'artistId', targetKey: 'id', onDelete: 'RESTRICT' }],
      }),
      collection('same', [field('id')]),
      collection('artist', [field('id')]),
    ];
    const report = diffUnmanaged(before, after);
    expect(report).toEqual({
      added: ['artist'],
      removed: ['gone'],
      changed: [{ collection: 'album', fields: { added: ['rating', 'artist'], removed: ['year'], changed: ['title'] } }],
      skipped: [],
    });
    expect(isEmptyReport(report)).toBe(false);
    expect(isEmptyReport(diffUnmanaged(after, after))).toBe(true);
  });
});

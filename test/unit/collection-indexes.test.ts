import { describe, expect, it } from 'vitest';
import { defaultIndexName, fieldInIndexes, indexChanges, normalizeIndexes } from '../../src/schema/collection-indexes.js';
import type { CollectionDef } from '../../src/schema/types.js';

const posts: CollectionDef = {
  name: 'posts',
  timestamps: false,
  autoGenId: true,
  idType: 'integer',
  filterTargetKey: 'id',
  fields: [
    { name: 'id', type: 'integer', allowNull: false, unique: false, index: false, primaryKey: true, system: 'id' },
    { name: 'status', type: 'string', allowNull: true, unique: false, index: true },
    { name: 'views', type: 'integer', allowNull: true, unique: false, index: false },
  ],
};

describe('collection indexes (pure stages)', () => {
  it('resolves each entry: default names by kind and fields, unique false unless asked', () => {
    expect(normalizeIndexes([{ fields: ['status', 'views'] }, { fields: ['views'], unique: true }, { fields: ['views', 'status'], name: 'mine' }], posts, [posts])).toEqual([
      { name: 'idx_posts_status_views', fields: ['status', 'views'], unique: false },
      { name: 'uidx_posts_views', fields: ['views'], unique: true },
      { name: 'mine', fields: ['views', 'status'], unique: false },
    ]);
    expect(normalizeIndexes(null, posts, [posts])).toEqual([]);
  });

  it('keeps names deterministic and within 63 characters', () => {
    const long = 'f'.repeat(60);
    const name = defaultIndexName('c'.repeat(60), [long, long.replace(/f/g, 'g')], true);
    expect(name.length).toBeLessThanOrEqual(63);
    expect(defaultIndexName('c'.repeat(60), [long, long.replace(/f/g, 'g')], true)).toBe(name);
    expect(defaultIndexName('c'.repeat(60), [long.replace(/f/g, 'g'), long], true)).not.toBe(name);
  });

  it('refuses a name the per-field indexes use (ix_posts_status)', () => {
    expect(() => normalizeIndexes([{ fields: ['views'], name: 'ix_posts_status' }], posts, [posts])).toThrow(/taken/);
  });

  it('replacing: unchanged entries stay, changed ones are dropped and made again', () => {
    const a = { name: 'a', fields: ['status'], unique: false };
    const b = { name: 'b', fields: ['views'], unique: false };
    const b2 = { name: 'b', fields: ['views'], unique: true };
    const c = { name: 'c', fields: ['status', 'views'], unique: false };
    expect(indexChanges([a, b], [a, b2, c])).toEqual({ drop: [b], create: [b2, c] });
    expect(indexChanges([a], [a])).toEqual({ drop: [], create: [] });
  });

  it('names the indexes that cover a field', () => {
    const def = { ...posts, indexes: [{ name: 'a', fields: ['status', 'views'], unique: false }] };
    expect(fieldInIndexes(def, 'views', 'drop the field')?.entries[0]).toMatchObject({ code: 'SCHEMA_INVALID', field: 'views', details: { indexes: ['a'] } });
    expect(fieldInIndexes(def, 'id', 'drop the field')).toBeUndefined();
  });
});

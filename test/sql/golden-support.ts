import {
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect as KyselyDialect,
} from 'kysely';
import type { DynamicDb } from '../../src/db/database.js';
import { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';
import type { CollectionDef, Dialect, FieldDef, RelationDef } from '../../src/schema/types.js';

/** Kysely with no database behind it: it only compiles (as Kysely's own tests do). */
export function compilerFor(dialect: Dialect): Kysely<DynamicDb> {
  const parts: Record<Dialect, Omit<KyselyDialect, 'createDriver'>> = {
    sqlite: { createAdapter: () => new SqliteAdapter(), createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler() },
    postgres: { createAdapter: () => new PostgresAdapter(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
    mysql: { createAdapter: () => new MysqlAdapter(), createIntrospector: (db) => new MysqlIntrospector(db), createQueryCompiler: () => new MysqlQueryCompiler() },
  };
  return new Kysely<DynamicDb>({ dialect: { ...parts[dialect], createDriver: () => new DummyDriver() } });
}

const field = (name: string, type: FieldDef['type'], extra: Partial<FieldDef> = {}): FieldDef => ({ name, type, allowNull: true, unique: false, index: false, ...extra });
const id = (): FieldDef => field('id', 'integer', { allowNull: false, primaryKey: true, autoIncrement: true, system: 'id' });
const collection = (name: string, fields: FieldDef[], relations: RelationDef[] = []): CollectionDef => ({
  name,
  timestamps: false,
  autoGenId: true,
  idType: 'integer',
  filterTargetKey: 'id',
  fields: [id(), ...fields],
  relations,
});
const relation = (def: Omit<RelationDef, 'onDelete'>): RelationDef => ({ onDelete: 'SET NULL', ...def });

/** posts → author (belongsTo), comments (hasMany), tags (belongsToMany through posts_tags). */
export function goldenSnapshot(dialect: Dialect): SchemaSnapshot {
  return new SchemaSnapshot(
    1,
    [
      collection('authors', [field('name', 'string')]),
      collection('comments', [field('body', 'string'), field('postId', 'integer')]),
      collection('tags', [field('name', 'string')]),
      collection('posts_tags', [field('postId', 'integer'), field('tagId', 'integer')]),
      collection(
        'posts',
        [field('title', 'string', { searchable: true }), field('views', 'integer'), field('active', 'boolean'), field('at', 'date'), field('authorId', 'integer')],
        [
          relation({ name: 'author', type: 'belongsTo', target: 'authors', foreignKey: 'authorId', targetKey: 'id' }),
          relation({ name: 'comments', type: 'hasMany', target: 'comments', foreignKey: 'postId', sourceKey: 'id' }),
          relation({ name: 'tags', type: 'belongsToMany', target: 'tags', through: 'posts_tags', foreignKey: 'postId', otherKey: 'tagId', sourceKey: 'id', targetKey: 'id' }),
        ],
      ),
    ],
    dialect,
  );
}

import { describe, expect, it } from 'vitest';
import { systemCollectionDefinitions } from '../../src/auth/system-collections.js';
import { normalizeCollection } from '../../src/schema/normalize-collection.js';
import { builtInFieldNames, isBuiltInField, isSystemCollection } from '../../src/schema/protected.js';
import { systemCollectionNames } from '../../src/schema/system-collection-tables.js';

/** protected.ts names the built-in fields by hand: they must be exactly what the system collections are made with. */
describe('protected collections', () => {
  const definitions = systemCollectionDefinitions();

  it('cover every system collection, and only those', () => {
    expect(definitions.map((definition) => definition.name).sort()).toEqual([...systemCollectionNames()].sort());
    for (const name of systemCollectionNames()) expect(isSystemCollection(name)).toBe(true);
    for (const name of ['posts', 'Users', 'collections', 'corral_users']) expect(isSystemCollection(name)).toBe(false);
  });

  for (const definition of definitions) {
    it(`name every field ${String(definition.name)} is made with as built-in`, () => {
      const { def, relationInputs } = normalizeCollection(definition, true);
      const made = [...def.fields.filter((field) => field.system === undefined).map((field) => field.name), ...relationInputs.map((relation) => String(relation.name))];
      const listed = builtInFieldNames(def.name)!;
      // A stamp relation (createdBy) brings its key column (createdById), added when the relation resolves.
      const keys = relationInputs.map((relation) => String(relation.foreignKey ?? `${String(relation.name)}Id`));
      expect([...listed].sort()).toEqual([...made, ...keys].sort());
      for (const field of def.fields) expect(isBuiltInField(def.name, field), field.name).toBe(true);
    });
  }

  it('leave a field a client adds to a system collection, and every field of other collections, unprotected', () => {
    const added = { name: 'phone', type: 'string', allowNull: true, unique: false, index: false } as const;
    expect(isBuiltInField('users', added)).toBe(false);
    expect(isBuiltInField('posts', { ...added, name: 'email' })).toBe(false);
    expect(isBuiltInField('posts', { ...added, name: 'id', system: 'id' })).toBe(false);
  });
});

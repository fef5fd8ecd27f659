import { ApiError } from '../errors/api-error.js';
import { invalid } from './normalize-field.js';
import { notManaged } from './not-managed.js';
import { isRecord } from '../is-record.js';
import { systemFields } from './normalize-collection.js';
import { checkGeneratedName, fieldNameProblem } from './reserved-names.js';
import { planSortBy } from './relation-sort.js';
import { attachmentRelationInput, isAttachmentInput } from './attachment-field.js';
import { copyFieldUi, FIELD_ADDRESS_OPTIONS, FIELD_UI_OPTIONS } from './ui-options.js';
import { NAME_PATTERN, ON_DELETE, RELATION_TYPES, type CollectionDef, type FieldDef, type OnDelete, type RelationDef, type RelationType } from './types.js';

const RELATION_OPTIONS = new Set<string>([
  'name', 'type', 'title', 'description', 'target', 'foreignKey', 'sourceKey', 'targetKey', 'through', 'otherKey', 'onDelete', 'sortable', 'sortBy',
  ...FIELD_UI_OPTIONS, ...FIELD_ADDRESS_OPTIONS,
]);
const KEY_TYPES = new Set(['string', 'integer', 'bigInt', 'uuid', 'nanoid']);

/** `posts` → `post`, `categories` → `category`: the readable default for key names. */
export function singular(name: string): string {
  if (/[^aeiou]ies$/.test(name)) return `${name.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(name)) return name;
  if (/(x|ch|sh|ss)es$/.test(name)) return name.slice(0, -2);
  if (name.endsWith('s')) return name.slice(0, -1);
  return name;
}

export function isRelationInput(input: unknown): input is Record<string, unknown> {
  return isAttachmentInput(input) || (isRecord(input) && typeof input.type === 'string' && (RELATION_TYPES as readonly string[]).includes(input.type));
}

/** What a relation needs besides its own definition. */
export interface RelationPlan {
  relation: RelationDef;
  /** Foreign key columns to add (to the source, the target or an existing through collection). */
  addFields: { collection: string; field: FieldDef }[];
  /** A through collection to create for belongsToMany. */
  createThrough?: CollectionDef;
}

function optionalName(input: Record<string, unknown>, key: string, where: string): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !NAME_PATTERN.test(value)) throw invalid(`${where}: ${key} must be a name matching ${NAME_PATTERN.source}`, where);
  return value;
}

/** A key field must be the primary key or unique and required, of a type a foreign key can copy. */
function keyField(def: CollectionDef, name: string | undefined, where: string, role: string): FieldDef {
  const field = name === undefined ? def.fields.find((f) => f.primaryKey === true) : def.fields.find((f) => f.name === name);
  if (field === undefined) throw invalid(`${where}: ${role} ${name ?? ''} is not a field of ${def.name}`, where);
  if (field.primaryKey !== true && !(field.unique && !field.allowNull)) throw invalid(`${where}: ${role} ${field.name} must be the primary key or unique and required`, where);
  if (!KEY_TYPES.has(field.type)) throw invalid(`${where}: ${role} ${field.name} has type ${field.type}, which cannot be referenced`, where);
  return field;
}

/** The foreign key column that points at `key` of `collection`. */
function foreignKeyField(name: string, key: FieldDef, collection: string, onDelete: OnDelete): FieldDef {
  const field: FieldDef = { name, type: key.type, allowNull: true, unique: false, index: true, references: { collection, key: key.name, onDelete } };
  if (key.length !== undefined) field.length = key.length;
  return field;
}

function sameReference(a: FieldDef, b: FieldDef): boolean {
  return a.type === b.type && a.references?.collection === b.references?.collection && a.references?.key === b.references?.key;
}

/**
 * An existing column may serve as the foreign key only if a relation made it for the same
 * reference (the two sides of posts.comments / comments.post share `comments.postId`).
 */
function planForeignKey(plan: RelationPlan, owner: CollectionDef, wanted: FieldDef, where: string, onDeleteGiven: boolean): void {
  const existing = owner.fields.find((field) => field.name.toLowerCase() === wanted.name.toLowerCase());
  if (owner.managed === false) {
    // A table Corral did not create: the relation is metadata over a key column it has (no DDL, no foreign key made).
    if (existing === undefined) throw notManaged(owner.name, `${where}: the key column ${wanted.name} does not exist, and adding it`);
    return;
  }
  if (existing === undefined) {
    plan.addFields.push({ collection: owner.name, field: wanted });
    return;
  }
  if (!sameReference(existing, wanted)) {
    throw invalid(`${where}: ${owner.name}.${wanted.name} already exists and is not a foreign key to ${wanted.references!.collection}.${wanted.references!.key}; choose another foreignKey`, where);
  }
  // A shared key column has one ON DELETE rule: the relation takes it, or names the same one.
  const rule = existing.references!.onDelete;
  if (onDeleteGiven && rule !== plan.relation.onDelete) {
    throw invalid(`${where}: ${owner.name}.${wanted.name} is shared with another relation and deletes with ${rule}; onDelete must be ${rule} or left out`, where);
  }
  plan.relation.onDelete = rule;
}

function findDef(defs: readonly CollectionDef[], name: string): CollectionDef | undefined {
  return defs.find((def) => def.name === name);
}

/**
 * Resolves a relation field definition against the schema: defaults, checks, and the
 * columns or through collection it needs. `defs` must include `source` as it stands now.
 */
export function resolveRelation(given: Record<string, unknown>, source: CollectionDef, defs: readonly CollectionDef[]): RelationPlan {
  if (isAttachmentInput(given)) {
    const { relation, options } = attachmentRelationInput(given, source.name);
    const plan = resolvePlain(relation, source, defs);
    plan.relation.attachment = options;
    return plan;
  }
  return resolvePlain(given, source, defs);
}

function resolvePlain(input: Record<string, unknown>, source: CollectionDef, defs: readonly CollectionDef[]): RelationPlan {
  const name = input.name;
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) throw invalid(`relation name must match ${NAME_PATTERN.source}`);
  const nameProblem = fieldNameProblem(name);
  if (nameProblem !== undefined) throw invalid(`relation name ${name} ${nameProblem}`, name);
  for (const key of Object.keys(input)) if (!RELATION_OPTIONS.has(key)) throw invalid(`${name}: option ${key} does not apply to relations`, name);
  const type = input.type as RelationType;
  const taken = [...source.fields.map((f) => f.name), ...(source.relations ?? []).map((r) => r.name)];
  if (taken.some((other) => other.toLowerCase() === name.toLowerCase())) {
    throw new ApiError('FIELD_EXISTS', `field ${name} already exists in ${source.name}`, { field: name });
  }

  const toOne = type === 'belongsTo' || type === 'hasOne';
  let targetName = optionalName(input, 'target', name);
  if (targetName === undefined) {
    const candidates = toOne ? [`${name}s`, name] : [name];
    targetName = candidates.find((candidate) => findDef(defs, candidate) !== undefined);
    if (targetName === undefined) throw invalid(`${name}: target is required (no collection ${candidates.join(' or ')} exists)`, name);
  }
  const target = findDef(defs, targetName);
  if (target === undefined) throw invalid(`${name}: target collection ${targetName} does not exist`, name);

  const onDeleteInput = input.onDelete ?? (type === 'belongsToMany' ? 'CASCADE' : 'SET NULL');
  const onDelete = typeof onDeleteInput === 'string' ? (onDeleteInput.toUpperCase() as OnDelete) : undefined;
  if (onDelete === undefined || !(ON_DELETE as readonly string[]).includes(onDelete)) throw invalid(`${name}: onDelete must be one of ${ON_DELETE.join(', ')}`, name);

  const relation: RelationDef = { name, type, target: target.name, foreignKey: '', onDelete };
  if (typeof input.title === 'string') relation.title = input.title;
  if (typeof input.description === 'string') relation.description = input.description;
  copyFieldUi(input, relation, name);
  const plan: RelationPlan = { relation, addFields: [] };
  if ((type === 'hasOne' || type === 'hasMany') && input.targetKey !== undefined && input.targetKey !== null) {
    // NocoBase's UI sends targetKey on hasMany (the target's key); the foreign key decides the join here.
    if (input.targetKey !== target.filterTargetKey && !target.fields.some((f) => f.name === input.targetKey && f.primaryKey === true)) {
      throw invalid(`${name}: ${type} takes foreignKey and sourceKey; targetKey may only name ${target.name}'s key`, name);
    }
  }

  if (type === 'belongsTo' || type === 'belongsToMany') planSortBy(plan, input, target);
  if (type === 'belongsTo') {
    if (input.sourceKey !== undefined || input.through !== undefined || input.otherKey !== undefined) throw invalid(`${name}: belongsTo takes foreignKey and targetKey only`, name);
    const targetKey = keyField(target, optionalName(input, 'targetKey', name), name, 'targetKey');
    relation.foreignKey = optionalName(input, 'foreignKey', name) ?? `${name}Id`;
    checkGeneratedName('field', relation.foreignKey, name, 'foreignKey');
    relation.targetKey = targetKey.name;
    planForeignKey(plan, source, foreignKeyField(relation.foreignKey, targetKey, target.name, onDelete), name, input.onDelete !== undefined);
    return plan;
  }
  const sourceKey = keyField(source, optionalName(input, 'sourceKey', name), name, 'sourceKey');
  relation.sourceKey = sourceKey.name;
  if (type === 'hasOne' || type === 'hasMany') {
    if (input.through !== undefined || input.otherKey !== undefined) throw invalid(`${name}: ${type} takes foreignKey and sourceKey only`, name);
    relation.foreignKey = optionalName(input, 'foreignKey', name) ?? `${singular(source.name)}Id`;
    checkGeneratedName('field', relation.foreignKey, name, 'foreignKey');
    planForeignKey(plan, target, foreignKeyField(relation.foreignKey, sourceKey, source.name, onDelete), name, input.onDelete !== undefined);
    planSortBy(plan, input, target);
    return plan;
  }

  // belongsToMany
  const targetKey = keyField(target, optionalName(input, 'targetKey', name), name, 'targetKey');
  relation.targetKey = targetKey.name;
  relation.foreignKey = optionalName(input, 'foreignKey', name) ?? `${singular(source.name)}Id`;
  relation.otherKey = optionalName(input, 'otherKey', name) ?? `${singular(target.name)}Id`;
  if (relation.foreignKey.toLowerCase() === relation.otherKey.toLowerCase()) {
    throw invalid(`${name}: foreignKey and otherKey are both ${relation.foreignKey}; name them (a collection related to itself needs both)`, name);
  }
  relation.through = optionalName(input, 'through', name) ?? [source.name, target.name].sort().join('_');
  checkGeneratedName('field', relation.foreignKey, name, 'foreignKey');
  checkGeneratedName('field', relation.otherKey, name, 'otherKey');
  const fk = foreignKeyField(relation.foreignKey, sourceKey, source.name, onDelete);
  const other = foreignKeyField(relation.otherKey, targetKey, target.name, onDelete);
  const through = findDef(defs, relation.through);
  if (through === undefined) {
    if (source.managed === false || target.managed === false) throw notManaged(source.managed === false ? source.name : target.name, `${name}: a new through collection ${relation.through} with foreign keys into it`);
    checkGeneratedName('collection', relation.through, name, 'through');
    if (defs.some((def) => def.name.toLowerCase() === relation.through!.toLowerCase())) {
      throw invalid(`${name}: through name ${relation.through} clashes with an existing collection`, name);
    }
    plan.createThrough = {
      name: relation.through,
      timestamps: true,
      autoGenId: true,
      idType: 'integer',
      filterTargetKey: 'id',
      fields: [...systemFields('integer', true, true), fk, other],
      relations: [],
      uniques: [[fk.name, other.name]],
    };
  } else {
    if (through.name === source.name || through.name === target.name) throw invalid(`${name}: through must be a collection of its own`, name);
    planForeignKey(plan, through, fk, name, input.onDelete !== undefined);
    planForeignKey(plan, through, other, name, input.onDelete !== undefined);
  }
  return plan;
}

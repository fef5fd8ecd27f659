/** The schema as `collections:list` describes it, and what the screens derive from it. */
export interface Field {
  name: string;
  type: string;
  allowNull?: boolean;
  unique?: boolean;
  index?: boolean;
  primaryKey?: boolean;
  system?: string;
  autoIncrement?: boolean;
  searchable?: boolean;
  length?: number;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  defaultValue?: unknown;
  target?: string;
  foreignKey?: string;
  sourceKey?: string;
  targetKey?: string;
  otherKey?: string;
  through?: string;
  onDelete?: string;
  references?: { collection: string; key: string; onDelete?: string };
  /** attachment: one file or several. */
  multiple?: boolean;
  /** A field a system collection is made with: the API refuses to drop or reshape it. */
  builtIn?: boolean;
}

export interface Collection {
  name: string;
  title?: string | null;
  filterTargetKey: string;
  fields: Field[];
  timestamps?: boolean;
  /** One of Corral's own collections: the API refuses to drop or rename it. */
  system?: boolean;
}

export const RELATION_TYPES = ['belongsTo', 'hasOne', 'hasMany', 'belongsToMany'] as const;
export const SCALAR_TYPES = [
  'string', 'text', 'integer', 'bigInt', 'float', 'double', 'decimal', 'boolean', 'date', 'dateOnly', 'time', 'json', 'array', 'uuid', 'nanoid', 'password', 'sort',
] as const;
/** The system collections' names, for a schema read from openapi.json (which carries no `system` flag). */
const SYSTEM_NAMES = new Set(['users', 'roles', 'apiKeys', 'rolesResourcesScopes', 'webhooks', 'attachments']);

/** One of Corral's own collections (`system: true` in collections:list): listed apart, never dropped. */
export function isSystemCollection(collection: Collection): boolean {
  return collection.system ?? SYSTEM_NAMES.has(collection.name);
}

export function isRelation(field: Field): boolean {
  return (RELATION_TYPES as readonly string[]).includes(field.type);
}
export function isToOne(field: Field): boolean {
  return field.type === 'belongsTo' || field.type === 'hasOne';
}
export function isNumeric(type: string): boolean {
  return ['integer', 'bigInt', 'float', 'double', 'sort'].includes(type);
}

/** Columns a grid shows: scalar fields other than passwords and files (files are appended). */
export function scalarFields(collection: Collection): Field[] {
  return collection.fields.filter((field) => !isRelation(field) && field.type !== 'password' && field.type !== 'attachment');
}

/** Fields whose values come with `appends`: relations and attachment fields. */
export function isAppendable(field: Field): boolean {
  return isRelation(field) || field.type === 'attachment';
}

/** Fields a person fills in a record form: no system columns, no foreign keys a belongsTo owns. */
export function editableFields(collection: Collection): Field[] {
  const owned = new Set(collection.fields.filter((field) => field.type === 'belongsTo').map((field) => field.foreignKey));
  return collection.fields.filter((field) => field.system === undefined && !field.autoIncrement && !owned.has(field.name) && field.type !== 'sort');
}

/** The field shown to name a row of a collection in pickers: its first string field, else its key. */
export function labelField(collection: Collection): string {
  return collection.fields.find((field) => (field.type === 'string' || field.type === 'text') && !field.primaryKey)?.name ?? collection.filterTargetKey;
}

/** Collections and fields that point at `name` (dropped with it, or refusing the drop). */
export function referencesTo(collections: Collection[], name: string): string[] {
  const out: string[] = [];
  for (const collection of collections) {
    if (collection.name === name) continue;
    for (const field of collection.fields) if (field.target === name || field.references?.collection === name) out.push(`${collection.name}.${field.name}`);
  }
  return out;
}

export function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

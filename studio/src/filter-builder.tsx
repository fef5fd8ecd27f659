import { isNumeric, isRelation, type Collection, type Field } from './schema';

export interface Condition {
  kind: 'condition';
  path: string;
  op: string;
  value: string;
}
export interface Group {
  kind: 'group';
  join: '$and' | '$or';
  items: (Condition | Group)[];
}

export const emptyGroup = (): Group => ({ kind: 'group', join: '$and', items: [] });

/** Operator families by field type (docs/querying.md); the value kind says how the input is read. */
type ValueKind = 'one' | 'list' | 'pair' | 'none' | 'period';
const COMMON: [string, ValueKind][] = [['$eq', 'one'], ['$ne', 'one'], ['$in', 'list'], ['$notIn', 'list'], ['$empty', 'none'], ['$notEmpty', 'none']];
const ORDER: [string, ValueKind][] = [['$gt', 'one'], ['$gte', 'one'], ['$lt', 'one'], ['$lte', 'one'], ['$between', 'pair'], ['$notBetween', 'pair']];
const TEXT: [string, ValueKind][] = [['$includes', 'one'], ['$notIncludes', 'one'], ['$startsWith', 'one'], ['$notStartsWith', 'one'], ['$endsWith', 'one'], ['$notEndsWith', 'one'], ['$like', 'one'], ['$notLike', 'one'], ['$iLike', 'one'], ['$notILike', 'one']];
const DATES: [string, ValueKind][] = [['$dateOn', 'period'], ['$dateNotOn', 'period'], ['$dateBefore', 'period'], ['$dateNotBefore', 'period'], ['$dateAfter', 'period'], ['$dateNotAfter', 'period'], ['$dateBetween', 'pair']];
const ARRAYS: [string, ValueKind][] = [['$anyOf', 'list'], ['$noneOf', 'list'], ['$match', 'list'], ['$notMatch', 'list'], ['$arrayEmpty', 'none'], ['$arrayNotEmpty', 'none']];
const BOOLEANS: [string, ValueKind][] = [['$isTruly', 'none'], ['$isFalsy', 'none'], ['$eq', 'one'], ['$ne', 'one'], ['$empty', 'none'], ['$notEmpty', 'none']];
const RELATIONS: [string, ValueKind][] = [['$exists', 'none'], ['$notExists', 'none']];

export function operatorsFor(type: string): [string, ValueKind][] {
  if (type === 'string' || type === 'text' || type === 'uuid' || type === 'nanoid') return [...COMMON, ...TEXT, ...ORDER];
  if (isNumeric(type) || type === 'decimal') return [...COMMON, ...ORDER];
  if (type === 'date' || type === 'dateOnly' || type === 'time') return [...COMMON, ...ORDER, ...DATES];
  if (type === 'boolean') return BOOLEANS;
  if (type === 'array') return ARRAYS;
  if (type === 'json') return [['$empty', 'none'], ['$notEmpty', 'none'], ['$eq', 'one']];
  return RELATIONS;
}

/** Paths a condition may name: own fields, and one step into each relation's target. */
export function filterPaths(collection: Collection, collections: Collection[]): { path: string; field: Field }[] {
  const out: { path: string; field: Field }[] = [];
  for (const field of collection.fields) {
    if (field.type === 'password') continue;
    out.push({ path: field.name, field });
    if (!isRelation(field)) continue;
    const target = collections.find((candidate) => candidate.name === field.target);
    for (const inner of target?.fields ?? []) if (!isRelation(inner) && inner.type !== 'password') out.push({ path: `${field.name}.${inner.name}`, field: inner });
  }
  return out;
}

function scalar(text: string, type: string): unknown {
  const trimmed = text.trim();
  if (trimmed === 'null') return null;
  if (isNumeric(type) && trimmed !== '' && !Number.isNaN(Number(trimmed))) return Number(trimmed);
  if (type === 'boolean') return trimmed === 'true';
  return text;
}

/** The filter language for a builder state; undefined when it holds no condition. */
export function toFilter(group: Group, paths: { path: string; field: Field }[]): Record<string, unknown> | undefined {
  const parts: Record<string, unknown>[] = [];
  for (const item of group.items) {
    if (item.kind === 'group') {
      const inner = toFilter(item, paths);
      if (inner !== undefined) parts.push(inner);
      continue;
    }
    const type = paths.find((candidate) => candidate.path === item.path)?.field.type ?? 'string';
    const kind = operatorsFor(type).find(([op]) => op === item.op)?.[1] ?? 'one';
    let value: unknown;
    if (kind === 'none') value = true;
    else if (kind === 'list') value = item.value.split(',').map((part) => scalar(part.trim(), type));
    else if (kind === 'pair') value = item.value.split(',').slice(0, 2).map((part) => scalar(part.trim(), type));
    else value = scalar(item.value, type);
    parts.push({ [item.path]: { [item.op]: value } });
  }
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && group.join === '$and') return parts[0];
  return { [group.join]: parts };
}

/** Conditions joined by and/or, with nested groups: the filter language, built by hand. */
export function FilterBuilder({ group, paths, onChange, depth = 0 }: { group: Group; paths: { path: string; field: Field }[]; onChange: (group: Group) => void; depth?: number }) {
  const replace = (index: number, item: Condition | Group | null) => {
    const items = [...group.items];
    if (item === null) items.splice(index, 1);
    else items[index] = item;
    onChange({ ...group, items });
  };
  const first = paths.find((candidate) => !isRelation(candidate.field)) ?? paths[0];
  const addCondition = () => {
    if (first === undefined) return;
    onChange({ ...group, items: [...group.items, { kind: 'condition', path: first.path, op: operatorsFor(first.field.type)[0]![0], value: '' }] });
  };
  return (
    <fieldset class="filter-group">
      <legend>
        <label>
          <span class="visually-hidden">Match</span>
          <select aria-label={depth === 0 ? 'Match' : `Match (group ${depth})`} value={group.join} onChange={(e) => onChange({ ...group, join: e.currentTarget.value as Group['join'] })}>
            <option value="$and">all of ($and)</option>
            <option value="$or">any of ($or)</option>
          </select>
        </label>
      </legend>
      {group.items.map((item, index) =>
        item.kind === 'group' ? (
          <div class="nested">
            <FilterBuilder group={item} paths={paths} depth={depth + 1} onChange={(inner) => replace(index, inner)} />
            <button type="button" onClick={() => replace(index, null)}>Remove group</button>
          </div>
        ) : (
          <ConditionRow condition={item} paths={paths} index={index} onChange={(condition) => replace(index, condition)} />
        ),
      )}
      <div class="row">
        <button type="button" onClick={addCondition}>Add condition</button>
        {depth < 2 && <button type="button" onClick={() => onChange({ ...group, items: [...group.items, emptyGroup()] })}>Add group</button>}
      </div>
    </fieldset>
  );
}

function ConditionRow({ condition, paths, index, onChange }: { condition: Condition; paths: { path: string; field: Field }[]; index: number; onChange: (condition: Condition | null) => void }) {
  const field = paths.find((candidate) => candidate.path === condition.path)?.field;
  const operators = operatorsFor(field?.type ?? 'string');
  const kind = operators.find(([op]) => op === condition.op)?.[1] ?? 'one';
  const n = index + 1;
  return (
    <div class="row condition" data-condition={n}>
      <label><span class="visually-hidden">Field of condition {n}</span>
        <select aria-label={`Field of condition ${n}`} value={condition.path} onChange={(e) => {
          const path = e.currentTarget.value;
          const type = paths.find((candidate) => candidate.path === path)?.field.type ?? 'string';
          onChange({ ...condition, path, op: operatorsFor(type)[0]![0] });
        }}>
          {paths.map((candidate) => <option value={candidate.path}>{candidate.path}</option>)}
        </select>
      </label>
      <label><span class="visually-hidden">Operator of condition {n}</span>
        <select aria-label={`Operator of condition ${n}`} value={condition.op} onChange={(e) => onChange({ ...condition, op: e.currentTarget.value })}>
          {operators.map(([op]) => <option value={op}>{op}</option>)}
        </select>
      </label>
      {kind !== 'none' && (
        <label><span class="visually-hidden">Value of condition {n}</span>
          <input aria-label={`Value of condition ${n}`} value={condition.value} placeholder={kind === 'list' ? 'a, b, c' : kind === 'pair' ? 'from, to' : kind === 'period' ? '2026-01, 2026Q1, 2026-01-15…' : 'value'} onInput={(e) => onChange({ ...condition, value: e.currentTarget.value })} />
        </label>
      )}
      <button type="button" onClick={() => onChange(null)} aria-label={`Remove condition ${n}`}>×</button>
    </div>
  );
}

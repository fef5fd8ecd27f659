import type { CatalogueColumn, CatalogueForeignKey, CatalogueTable } from './catalogue.js';

/** Base types whose arguments are (precision, scale). */
const DECIMAL_TYPES = new Set(['numeric', 'decimal', 'dec', 'fixed', 'number']);
/** Base types whose argument is a fractional-seconds precision. */
const TIME_TYPE = /^(time|timestamp|datetime)\b/;
/** Base types whose argument is a length. */
const LENGTH_TYPE = /char|binary|^bit\b|^bit varying$/;

/**
 * Length, precision and scale from a type's arguments as declared (`varchar(80)`,
 * `numeric(12,2)`, `timestamp(3) with time zone`, `datetime(3)`); none for other types
 * (a MySQL `int(11)` display width is not a size).
 */
export function typeArguments(baseType: string, rawType: string): Pick<CatalogueColumn, 'length' | 'precision' | 'scale'> {
  const match = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(rawType);
  if (match === null) return {};
  const first = Number(match[1]);
  if (DECIMAL_TYPES.has(baseType)) return { precision: first, scale: match[2] === undefined ? 0 : Number(match[2]) };
  if (TIME_TYPE.test(baseType)) return { precision: first };
  if (LENGTH_TYPE.test(baseType)) return { length: first };
  return {};
}

/** The base type of a declared type: lower case, arguments and trailing words after them dropped (`varchar(80)` → `varchar`). */
export function declaredBaseType(declared: string): string {
  return declared.toLowerCase().replace(/\(.*$/s, '').replace(/\s+/g, ' ').trim();
}

/** Members of a MySQL `enum('a','b')` / `set(…)` column type (quotes doubled or backslashed inside). */
export function quotedMembers(columnType: string): string[] {
  const open = columnType.indexOf('(');
  const members: string[] = [];
  let i = open + 1;
  while (open >= 0 && i < columnType.length) {
    if (columnType[i] !== "'") {
      i++;
      continue;
    }
    let value = '';
    i++;
    while (i < columnType.length) {
      const char = columnType[i]!;
      if (char === '\\' && i + 1 < columnType.length) {
        value += columnType[i + 1];
        i += 2;
      } else if (char === "'" && columnType[i + 1] === "'") {
        value += "'";
        i += 2;
      } else if (char === "'") {
        i++;
        break;
      } else {
        value += char;
        i++;
      }
    }
    members.push(value);
  }
  return members;
}

const DELETE_RULES: Record<string, CatalogueForeignKey['onDelete']> = {
  cascade: 'CASCADE',
  'set null': 'SET NULL',
  restrict: 'RESTRICT',
  'no action': 'NO ACTION',
  'set default': 'SET DEFAULT',
};

/** An ON DELETE rule as a catalogue spells it (any case), `NO ACTION` when unknown or missing. */
export function deleteRule(rule: string | null | undefined): CatalogueForeignKey['onDelete'] {
  return DELETE_RULES[(rule ?? '').toLowerCase()] ?? 'NO ACTION';
}

/** A catalogue number (bigint on SQLite, string for 64-bit values elsewhere) as a number. */
export function catalogueNumber(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : Number(value);
}

/** Groups rows by a key, keeping their order. */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [row]);
    else group.push(row);
  }
  return groups;
}

/** Drops column lists equal to one already kept (a unique constraint and its own unique index, say). */
export function distinctLists(lists: readonly string[][], except: readonly string[] = []): string[][] {
  const seen = new Set<string>([JSON.stringify(except)]);
  const kept: string[][] = [];
  for (const list of lists) {
    const key = JSON.stringify(list);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(list);
  }
  return kept;
}

/** A check's condition without `CHECK` and without parentheses that wrap all of it (`CHECK ((a > 0))` → `a > 0`). */
export function checkCondition(text: string): string {
  let condition = text.trim().replace(/^check\s*/i, '').replace(/\s+not valid$/i, '').trim();
  while (condition.startsWith('(') && closingParen(condition) === condition.length - 1) condition = condition.slice(1, -1).trim();
  return condition;
}

/** Where the parenthesis opening `text` closes (quotes skipped), or -1. */
function closingParen(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return -1;
}

/** One column of one index as a catalogue lists it; `column_name` is null for an expression. */
export interface IndexColumnRow {
  table_name: string;
  name: string;
  column_name: string | null;
}

/**
 * Places a catalogue's index rows (in key order) on their tables: the primary key, unique
 * column lists (the primary key not repeated) and plain indexes; expression indexes are left out.
 * `kind` says what an index is from its first row and all its rows.
 */
export function placeIndexes<T extends IndexColumnRow>(tables: ReadonlyMap<string, CatalogueTable>, rows: readonly T[], kind: (first: T, parts: readonly T[]) => 'primary' | 'unique' | 'index'): void {
  const uniques = new Map<string, string[][]>();
  for (const parts of groupBy(rows, (row) => `${row.table_name}\u0000${row.name}`).values()) {
    const first = parts[0]!;
    const table = tables.get(first.table_name);
    if (table === undefined || parts.some((part) => part.column_name === null)) continue;
    const names = parts.map((part) => part.column_name!);
    const placed = kind(first, parts);
    if (placed === 'primary') table.primaryKey = names;
    else if (placed === 'unique') uniques.set(table.name, [...(uniques.get(table.name) ?? []), names]);
    else table.indexes.push({ name: first.name, columns: names });
  }
  for (const [name, lists] of uniques) {
    const table = tables.get(name)!;
    table.uniques = distinctLists(lists, table.primaryKey);
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The store is the only door (docs/architecture.md#the-store-is-the-only-door): no edge folder
 * builds or runs SQL, nor holds a database handle; system rows go through `store.system()`,
 * collection rows through a unit of work. And actions decide no access themselves: no open
 * grants, no root check (root-only resources are grants the store evaluates). No exceptions.
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

const EDGE_FOLDERS = ['actions', 'auth', 'webhooks', 'metrics', 'http', 'files', 'import', 'export', 'openapi', 'studio'];

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  /** The folders the rule holds in (default: every edge folder). */
  readonly folders?: readonly string[];
}

const RULES: readonly Rule[] = [
  { name: 'a Kysely query builder', pattern: /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\s*\(/ },
  { name: 'a statement run on a database handle', pattern: /\.(execute|executeTakeFirst|executeTakeFirstOrThrow|executeQuery|stream)\s*\(\s*\)|\.executeQuery\s*\(|\.execute\s*\(\s*(db|trx|this\.db|database\.db|unit\.db)\b/ },
  { name: 'a transaction opened outside the store', pattern: /\.transaction\s*\(\s*\)/ },
  { name: 'DDL outside the store', pattern: /\.schema\s*\.\s*(createTable|dropTable|alterTable|createIndex|dropIndex)\b/ },
  { name: 'an sql tag', pattern: /\bsql\s*(<[^>]*>)?\s*`/ },
  { name: 'raw SQL pieces', pattern: /\bsql\s*\.\s*(raw|ref|id|lit|join|table|val)\b/ },
  { name: 'an import of kysely', pattern: /from\s+['"]kysely['"]|import\s*\(\s*['"]kysely['"]\s*\)/ },
  { name: "a unit of work's or the store's database handle", pattern: /\bunit\.db\b|\bstore\.database\b|\.store\.database\b/ },
  { name: 'open grants decided by an action', pattern: /\bOPEN_GRANTS\b/, folders: ['actions'] },
  { name: 'a root check in an action', pattern: /\bisRoot\s*\(/, folders: ['actions'] },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The code of a file with its comments blanked (a comment may name what the code may not do). */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

/** Every hit of every rule in the edge folders, as `file:line: rule: code`. */
function hits(): string[] {
  const found: string[] = [];
  for (const folder of EDGE_FOLDERS) {
    for (const file of sourceFiles(join(SRC, folder))) {
      const lines = codeOf(readFileSync(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        for (const rule of RULES) {
          if (rule.folders !== undefined && !rule.folders.includes(folder)) continue;
          if (rule.pattern.test(line)) found.push(`src/${relative(SRC, file)}:${index + 1}: ${rule.name}: ${line.trim()}`);
        }
      });
    }
  }
  return found;
}

describe('the store is the only door', () => {
  it('no edge folder builds or runs SQL, holds a database handle, or (actions) decides access itself', () => {
    expect(hits()).toEqual([]);
  });

  it('the rules see what they are for (each one fires on an example)', () => {
    const examples: Record<string, string> = {
      'a Kysely query builder': "await db.selectFrom('t').selectAll()",
      'a statement run on a database handle': 'await query.executeTakeFirst()',
      'a transaction opened outside the store': 'await db.transaction().execute(async (trx) => {})',
      'DDL outside the store': "await db.schema.dropTable('t').execute()",
      'an sql tag': 'await sql`select 1`.execute(db)',
      'raw SQL pieces': "sql.ref('role')",
      'an import of kysely': "import { sql } from 'kysely';",
      "a unit of work's or the store's database handle": 'await insertState(unit.db, id)',
      'open grants decided by an action': 'ctx.store.read({ grants: OPEN_GRANTS })',
      'a root check in an action': 'if (!ctx.isRoot(ctx.request)) throw forbidden',
    };
    for (const rule of RULES) expect(rule.pattern.test(codeOf(examples[rule.name]!)), rule.name).toBe(true);
    // A comment naming a builder is no hit.
    expect(RULES.some((rule) => rule.pattern.test(codeOf('// never db.selectFrom here')))).toBe(false);
  });
});

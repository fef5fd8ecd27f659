import type { CatalogueCheck } from './catalogue.js';

/**
 * The CHECK constraints of a SQLite `CREATE TABLE` text (SQLite keeps no catalogue of them):
 * each `CHECK (…)` outside string literals, quoted names and comments, with the name of a
 * `CONSTRAINT name` right before it.
 */
export function sqliteChecks(createSql: string): CatalogueCheck[] {
  const tokens = tokenize(createSql);
  const checks: CatalogueCheck[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== 'word' || token.text.toLowerCase() !== 'check' || tokens[i + 1]?.text !== '(') continue;
    let depth = 0;
    let end = i + 1;
    for (; end < tokens.length; end++) {
      if (tokens[end]!.text === '(') depth++;
      else if (tokens[end]!.text === ')' && --depth === 0) break;
    }
    const open = tokens[i + 1]!;
    const close = tokens[end];
    const expression = createSql.slice(open.end, close === undefined ? createSql.length : close.start).trim();
    const before = tokens[i - 2];
    const name = before !== undefined && before.kind === 'word' && before.text.toLowerCase() === 'constraint' ? unquote(tokens[i - 1]!) : undefined;
    checks.push(name === undefined ? { expression } : { name, expression });
    i = end;
  }
  return checks;
}

interface Token {
  kind: 'word' | 'quoted' | 'string' | 'punct';
  text: string;
  start: number;
  end: number;
}

function unquote(token: Token): string {
  if (token.kind !== 'quoted') return token.text;
  const quote = token.text[0]!;
  const inner = token.text.slice(1, -1);
  return quote === '[' ? inner : inner.split(quote + quote).join(quote);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i++;
    } else if (char === '-' && text[i + 1] === '-') {
      const newline = text.indexOf('\n', i);
      i = newline < 0 ? text.length : newline + 1;
    } else if (char === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? text.length : close + 2;
    } else if (char === "'" || char === '"' || char === '`' || char === '[') {
      const closing = char === '[' ? ']' : char;
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === closing && closing !== ']' && text[j + 1] === closing) j += 2;
        else if (text[j] === closing) break;
        else j++;
      }
      tokens.push({ kind: char === "'" ? 'string' : 'quoted', text: text.slice(i, j + 1), start: i, end: j + 1 });
      i = j + 1;
    } else if (/[\p{L}\p{N}_$]/u.test(char)) {
      let j = i + 1;
      while (j < text.length && /[\p{L}\p{N}_$]/u.test(text[j]!)) j++;
      tokens.push({ kind: 'word', text: text.slice(i, j), start: i, end: j });
      i = j;
    } else {
      tokens.push({ kind: 'punct', text: char, start: i, end: i + 1 });
      i++;
    }
  }
  return tokens;
}

import { fail, ok, type Parsed } from './field-type.js';
import { FIELD_TYPES } from './field-types/index.js';
import { codePointLength } from './field-types/text-like.js';
import { compilePattern, type PatternTest } from './pattern.js';
import type { FieldDef } from './types.js';

/** Checks one non-null client value against its field's type and options; compiled once per field. */
export type FieldValidator = (value: unknown) => Parsed;

/** Canonical values compare by this key (Dates, bigints and strings alike). */
const comparable = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : JSON.stringify(value);

export function compileFieldValidator(def: FieldDef): FieldValidator {
  const type = FIELD_TYPES[def.type];
  const checks: ((value: unknown) => string | undefined)[] = [];
  const numeric = (value: unknown): number => (typeof value === 'number' ? value : Number(value));
  if (def.min !== undefined) {
    const min = def.min;
    checks.push((value) => (numeric(value) < min ? `must be at least ${min}` : undefined));
  }
  if (def.max !== undefined) {
    const max = def.max;
    checks.push((value) => (numeric(value) > max ? `must be at most ${max}` : undefined));
  }
  if (def.minLength !== undefined) {
    const minLength = def.minLength;
    checks.push((value) => (codePointLength(String(value)) < minLength ? `must be at least ${minLength} characters` : undefined));
  }
  if (def.maxLength !== undefined) {
    const maxLength = def.maxLength;
    checks.push((value) => (codePointLength(String(value)) > maxLength ? `must be at most ${maxLength} characters` : undefined));
  }
  if (def.pattern !== undefined) {
    const source = def.pattern;
    let matches: PatternTest;
    try {
      matches = compilePattern(source);
    } catch {
      // Stored before patterns ran on RE2: refuse values rather than run a backtracking engine.
      matches = () => false;
    }
    checks.push((value) => (matches(String(value)) ? undefined : `must match the pattern ${source}`));
  }
  if (def.enum !== undefined) {
    const allowed = new Set(
      def.enum.map((value) => {
        const parsed = type.parse(value, def);
        return comparable(parsed.ok ? parsed.value : value);
      }),
    );
    checks.push((value) => (allowed.has(comparable(value)) ? undefined : `must be one of ${JSON.stringify(def.enum)}`));
  }
  return (value) => {
    const parsed = type.parse(value, def);
    if (!parsed.ok) return parsed;
    for (const check of checks) {
      const problem = check(parsed.value);
      if (problem !== undefined) return fail(problem);
    }
    return ok(parsed.value);
  };
}

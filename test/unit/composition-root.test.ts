import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * buildApp is wiring only: open the database, construct the services, start them, register
 * routes. Request handling, parsers, error rendering and health checks live in src/http/, so
 * the function stays short enough to read at once.
 */
describe('the composition root', () => {
  it('keeps buildApp under 100 lines', () => {
    const lines = readFileSync(new URL('../../src/app.ts', import.meta.url), 'utf8').split('\n');
    const start = lines.findIndex((line) => line.startsWith('export async function buildApp'));
    expect(start).toBeGreaterThanOrEqual(0);
    // The function's closing brace is the first line after it that is exactly `}`.
    const end = lines.findIndex((line, index) => index > start && line === '}');
    expect(end).toBeGreaterThan(start);
    expect(end - start - 1).toBeLessThan(100);
  });
});

import { describe, expect, it } from 'vitest';
import { REQUEST_ID_PATTERN, requestIdGenerator } from '../../src/http/request-id.js';

const UUID_LAYOUT = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9]{12}$/;

describe('requestIdGenerator', () => {
  it('makes ids in the layout of a UUID that count up and pass the request id rule', () => {
    const next = requestIdGenerator();
    const ids = Array.from({ length: 1000 }, () => next());
    for (const id of ids) {
      expect(id).toMatch(UUID_LAYOUT);
      expect(REQUEST_ID_PATTERN.test(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]!.slice(-12)).toBe('000000000001');
    expect(ids[999]!.slice(-12)).toBe('000000001000');
    // One prefix per generator.
    expect(new Set(ids.map((id) => id.slice(0, 24))).size).toBe(1);
  });

  it('gives each generator (each process) its own random prefix', () => {
    const prefixes = new Set(Array.from({ length: 50 }, () => requestIdGenerator()().slice(0, 24)));
    expect(prefixes.size).toBe(50);
  });
});

import { expect } from 'vitest';
import type { BuiltApp } from '../../src/app.js';
import type { TestApi } from './test-app.js';

/** One event as `changes:list` and `:subscribe` send it (API.md section 11). */
export interface ChangeEvent {
  id: number;
  collection: string;
  action: string;
  key: unknown;
  data: Record<string, unknown>;
  at: string;
}

/** Every event after `after` (of one collection, if given), through `changes:list` pages. */
export async function eventsAfter(api: TestApi, after: number, collection?: string): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  let cursor = after;
  for (;;) {
    const reply = await api.get(`/api/changes:list?${cursor === 0 ? '' : `after=${cursor}&`}pageSize=100${collection === undefined ? '' : `&collection=${collection}`}`);
    expect(reply.status, reply.text).toBe(200);
    out.push(...reply.body.data);
    if (!reply.body.meta.hasNext) return out;
    cursor = reply.body.data.at(-1).id;
  }
}

/**
 * Runs `write` on the transaction path: a second beforeCommit hook turns both SQLite's
 * synchronous unit and PostgreSQL's fused statement off.
 */
export async function inTransaction<T>(built: BuiltApp, write: () => Promise<T>): Promise<T> {
  const remove = built.store.beforeCommit(() => undefined);
  try {
    return await write();
  } finally {
    remove();
  }
}

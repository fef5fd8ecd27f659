import type { TestApi } from '../../support/test-app.js';
import { ALL, type CollectionName } from './access-schema.js';
import type { Leak } from './check-answer.js';
import { fieldAllowed, grantOf, type Grant } from './grant.js';
import { matches, type World } from './world.js';

/** One change event as changes:list answers it. */
interface ChangeEvent {
  id: number;
  collection: string;
  key: unknown;
  data: Record<string, unknown>;
}

/** Root's events after `after` up to `through` (paged), by id. */
export async function rootEvents(root: TestApi, after: number, through: number): Promise<Map<number, ChangeEvent>> {
  const out = new Map<number, ChangeEvent>();
  let cursor = after;
  while (cursor < through) {
    const reply = await root.get(`/api/changes:list?after=${cursor}&pageSize=200`);
    if (reply.status !== 200) throw new Error(`root changes:list failed: ${reply.status} ${reply.text}`);
    const page = reply.body.data as ChangeEvent[];
    for (const event of page) out.set(event.id, event);
    if (!reply.body.meta.hasNext || page.length === 0) break;
    cursor = page.at(-1)!.id;
  }
  return out;
}

/** The newest event id (root), reading on from `after`. */
export async function lastEventId(root: TestApi, after: number): Promise<number> {
  const events = await rootEvents(root, after, Number.MAX_SAFE_INTEGER);
  return Math.max(after, ...events.keys());
}

/**
 * Oracle part 1 for the change feed: every event a caller is shown is root's event of the
 * same id, of a collection the caller may view, for a row within the view filter (evaluated on
 * root's full event row; association steps read the current rows), showing only granted fields
 * with root's values.
 */
export async function eventLeaks(root: TestApi, body: any, after: number, grant: Grant, userId: number, world: World): Promise<Leak[]> {
  const shown: ChangeEvent[] = Array.isArray(body?.data) ? body.data : [];
  if (shown.length === 0) return [];
  const truth = await rootEvents(root, after, Math.max(...shown.map((e) => e.id)));
  const leaks: Leak[] = [];
  for (const event of shown) {
    const real = truth.get(event.id);
    if (real === undefined || real.collection !== event.collection) {
      leaks.push({ kind: 'phantom', detail: `event ${event.id} (${event.collection}) is not root's` });
      continue;
    }
    const collection = event.collection as CollectionName;
    const view = ALL.includes(collection) ? grantOf(grant, collection, 'view') : undefined;
    if (view === undefined) {
      leaks.push({ kind: 'event-row', detail: `event ${event.id} of ${event.collection}, which the caller may not view` });
      continue;
    }
    if (view.filter !== undefined && !matches(view.filter, collection, real.data, world, userId)) leaks.push({ kind: 'event-row', detail: `event ${event.id}: ${collection} ${String(event.key)} is outside the view filter ${JSON.stringify(view.filter)}` });
    for (const [field, value] of Object.entries(event.data ?? {})) {
      if (!fieldAllowed(view, collection, field)) leaks.push({ kind: 'event-field', detail: `event ${event.id} shows ${collection}.${field} outside the view grant` });
      else if (JSON.stringify(value) !== JSON.stringify(real.data[field])) leaks.push({ kind: 'phantom', detail: `event ${event.id} shows ${collection}.${field}=${JSON.stringify(value)}, root's event ${JSON.stringify(real.data[field])}` });
    }
  }
  return leaks;
}

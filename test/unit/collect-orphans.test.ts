import { createHash } from 'node:crypto';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { collectOrphans } from '../../src/files/collect-orphans.js';
import { contentKey, FileMissingError, type FileStorage, type StagedFile } from '../../src/files/file-storage.js';
import { LocalStorage } from '../../src/files/local-storage.js';
import { store } from '../support/storage-contract.js';

const MINUTE = 60_000;
const key = (name: string): string => contentKey(createHash('sha256').update(name).digest('hex'));

/** A storage that is a map of key → modified time, on an injected clock. */
function memoryStorage(clock: { now: number }): FileStorage & { objects: Map<string, Date> } {
  const objects = new Map<string, Date>();
  return {
    name: 'memory',
    objects,
    async put(file: StagedFile) {
      const stored = contentKey(file.sha256);
      objects.set(stored, new Date(clock.now));
      return stored;
    },
    async read(stored: string) {
      if (!objects.has(stored)) throw new FileMissingError(stored);
      return Readable.from([]);
    },
    async remove(stored: string) {
      objects.delete(stored);
    },
    async *list() {
      for (const [stored, modified] of [...objects]) yield { key: stored, modified };
    },
  };
}

describe('collectOrphans', () => {
  it('removes unreferenced objects older than the minimum age, and nothing else', async () => {
    const clock = { now: Date.parse('2026-11-27T12:00:00Z') };
    const storage = memoryStorage(clock);
    const at = (minutesAgo: number) => new Date(clock.now - minutesAgo * MINUTE);
    storage.objects.set(key('old orphan'), at(120));
    storage.objects.set(key('old referenced'), at(120));
    storage.objects.set(key('young orphan'), at(59)); // an upload whose row is not committed yet
    storage.objects.set(key('just old enough'), at(60));
    const referenced = new Set([key('old referenced')]);
    const asked: string[] = [];
    const sweep = await collectOrphans(storage, async (stored) => {
      asked.push(stored);
      return referenced.has(stored);
    }, { minAgeMs: 60 * MINUTE, now: () => clock.now });
    expect(sweep.examined).toBe(4);
    expect(sweep.removed.sort()).toEqual([key('old orphan'), key('just old enough')].sort());
    expect([...storage.objects.keys()].sort()).toEqual([key('old referenced'), key('young orphan')].sort());
    // The database is asked about old objects only.
    expect(asked).not.toContain(key('young orphan'));
  });

  it('keeps a referenced or young object whatever the clock says (property, against an oracle)', async () => {
    const object = fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), ageMinutes: fc.nat({ max: 500 }), referenced: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(object, { selector: (o) => o.name, maxLength: 20 }), fc.integer({ min: 1, max: 300 }), async (objects, minAgeMinutes) => {
        const clock = { now: Date.parse('2026-11-27T12:00:00Z') };
        const storage = memoryStorage(clock);
        for (const o of objects) storage.objects.set(key(o.name), new Date(clock.now - o.ageMinutes * MINUTE));
        const referenced = new Set(objects.filter((o) => o.referenced).map((o) => key(o.name)));
        const sweep = await collectOrphans(storage, async (stored) => referenced.has(stored), { minAgeMs: minAgeMinutes * MINUTE, now: () => clock.now });
        const expectedLeft = objects.filter((o) => o.referenced || o.ageMinutes < minAgeMinutes).map((o) => key(o.name)).sort();
        expect([...storage.objects.keys()].sort()).toEqual(expectedLeft);
        expect(sweep.removed.length + expectedLeft.length).toBe(objects.length);
      }),
      { numRuns: 200 },
    );
  });

  describe('on the local storage', () => {
    const dirs: string[] = [];
    afterEach(async () => {
      for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
    });

    it('keeps an old orphan that an upload has just put again (put refreshes its modified time)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'corral-orphans-'));
      dirs.push(dir);
      const storage = await LocalStorage.open(dir);
      const bytes = Buffer.from('uploaded, deleted, uploaded again');
      const { key: stored } = await store(storage, bytes);
      const { key: other } = await store(storage, Buffer.from('an orphan'));
      const longAgo = new Date(Date.now() - 24 * 60 * MINUTE);
      await utimes(join(dir, stored), longAgo, longAgo);
      await utimes(join(dir, other), longAgo, longAgo);
      // The new upload's row is not committed yet: nothing references the bytes.
      await store(storage, bytes);
      const sweep = await collectOrphans(storage, async () => false, { minAgeMs: 60 * MINUTE });
      expect(sweep.removed).toEqual([other]);
      const left = [];
      for await (const entry of storage.list()) left.push(entry.key);
      expect(left).toEqual([stored]);
    });
  });
});

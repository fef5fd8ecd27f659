import { describe, expect, it } from 'vitest';
import { IMPORT_SLICE_MS, TurnYielder } from '../../src/import/turn-yielder.js';

/** The import's turns (issue 37, finding 9): a turn once a slice of work has passed, none before; the clock is injected. */
describe('TurnYielder', () => {
  it.each([
    // [clock readings after the start, turns given]
    [[1, 2, 3], 0],
    [[IMPORT_SLICE_MS - 1, IMPORT_SLICE_MS], 1],
    [[IMPORT_SLICE_MS, IMPORT_SLICE_MS + 1, 2 * IMPORT_SLICE_MS], 2],
    [[100, 101, 102, 200], 2],
  ] as const)('at %j gives %i turns', async (readings, turns) => {
    let now = 0;
    const yielder = new TurnYielder(IMPORT_SLICE_MS, () => now);
    for (const reading of readings) {
      now = reading;
      await yielder.yield();
    }
    expect(yielder.turns).toBe(turns);
  });

  it('lets a timer that is due run during a turn', async () => {
    let now = 0;
    const yielder = new TurnYielder(IMPORT_SLICE_MS, () => now);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    now = IMPORT_SLICE_MS;
    await yielder.yield();
    expect(ran).toBe(true);
  });
});

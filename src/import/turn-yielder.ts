import { setImmediate as nextTurn } from 'node:timers/promises';

/** Milliseconds of import work between two turns given back to the event loop (docs/import-export.md#limits-and-large-files). */
export const IMPORT_SLICE_MS = 8;

/**
 * Gives the event loop a turn once `sliceMs` of work has passed since the last one: a long import
 * on SQLite (whose statements are synchronous) would otherwise hold the worker's other requests
 * until its last row. `yield()` is called per row; it costs a clock read unless the slice is over,
 * then one `setImmediate` (timers and I/O callbacks run before it resolves).
 */
export class TurnYielder {
  private last: number;

  constructor(
    private readonly sliceMs: number = IMPORT_SLICE_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.last = clock();
  }

  /** Turns given so far (for tests). */
  turns = 0;

  async yield(): Promise<void> {
    if (this.clock() - this.last < this.sliceMs) return;
    await nextTurn();
    this.turns += 1;
    this.last = this.clock();
  }
}

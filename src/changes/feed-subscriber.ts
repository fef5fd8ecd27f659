import type { ChangeRow } from './changes-table.js';

/** One consumer of the live feed (an SSE connection). */
export interface FeedSubscriber {
  /** The collection it follows. */
  readonly collection: string;
  /**
   * How it renders events, when that depends on nothing but the events: subscribers with the
   * same view given the same events write the same bytes, so the fan-out renders them once.
   */
  readonly view?: string;
  /** The last event id it has been given. */
  cursor: number;
  /**
   * Takes events in id order (only those after `cursor`, of its collection). `shared` holds
   * what other subscribers of the same view rendered from the same events in this fan-out.
   * Returns false to be dropped.
   */
  deliver(rows: readonly ChangeRow[], shared?: Map<string, Buffer>): boolean;
  /** Called once when the feed drops it (closing, or deliver returned false). */
  drop(): void;
  /** Checks its caller's access again (after a change of users, roles or grants; ChangeFeed.recheck). */
  recheck?(): void;
}

export interface FeedLog {
  error(object: object, message: string): void;
}

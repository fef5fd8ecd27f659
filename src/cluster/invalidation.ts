/**
 * How a change of users, roles, grants, API keys or the schema reaches the other workers of a
 * node before it is acknowledged: the worker that made it sends INVALIDATE_MESSAGE to the
 * primary, the primary passes it to every other worker, each drops its caches (or reloads the
 * schema) and answers INVALIDATED_MESSAGE, and once all answered (or INVALIDATE_WAIT_MS
 * passed) the primary answers the first worker, which only then sends its HTTP answer.
 */

export const INVALIDATE_MESSAGE = 'corral:invalidate';
export const INVALIDATED_MESSAGE = 'corral:invalidated';
/**
 * How long the primary waits for the other workers to confirm. A worker that does not answer
 * in time (stuck, or dying) is logged and not waited for; it still drops its user and role
 * caches within their 1 s lifetime and sees the schema at its next poll.
 */
export const INVALIDATE_WAIT_MS = 2000;
/** The worker's own bound, in case the primary itself does not answer. */
export const INVALIDATE_ORIGIN_WAIT_MS = INVALIDATE_WAIT_MS + 500;

/** What changed: `auth` the users, roles or API keys; `schemaVersion` the schema, now at that version. */
export interface Notice {
  readonly auth: boolean;
  readonly schemaVersion?: number;
}

export interface InvalidateMessage {
  readonly type: typeof INVALIDATE_MESSAGE;
  readonly id: string;
  readonly notice: Notice;
}

export interface InvalidatedMessage {
  readonly type: typeof INVALIDATED_MESSAGE;
  readonly id: string;
}

function fields(message: unknown): Record<string, unknown> | undefined {
  return typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : undefined;
}

export function isNotice(value: unknown): value is Notice {
  const notice = fields(value);
  return notice !== undefined && typeof notice.auth === 'boolean' && (notice.schemaVersion === undefined || typeof notice.schemaVersion === 'number');
}

export function isInvalidateMessage(message: unknown): message is InvalidateMessage {
  const m = fields(message);
  return m !== undefined && m.type === INVALIDATE_MESSAGE && typeof m.id === 'string' && isNotice(m.notice);
}

export function isInvalidatedMessage(message: unknown): message is InvalidatedMessage {
  const m = fields(message);
  return m !== undefined && m.type === INVALIDATED_MESSAGE && typeof m.id === 'string';
}

export interface RelayLog {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** A worker's side of the exchange (see the module comment). */
export class ClusterRelay {
  #next = 0;
  readonly #waiting = new Map<string, () => void>();

  constructor(
    private readonly send: (message: InvalidateMessage | InvalidatedMessage) => void,
    /** Drops this worker's caches a notice from another worker names. */
    private readonly apply: (notice: Notice) => Promise<void>,
    private readonly log: RelayLog,
    private readonly waitMs = INVALIDATE_ORIGIN_WAIT_MS,
  ) {}

  /** Tells every other worker of the node; resolves once they confirmed (or the wait ran out). Never rejects. */
  announce(notice: Notice): Promise<void> {
    const id = `${process.pid}:${++this.#next}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        this.log.warn({ notice }, `the other workers did not confirm a cache invalidation within ${this.waitMs} ms; answering without it`);
        resolve();
      }, this.waitMs);
      this.#waiting.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        this.send({ type: INVALIDATE_MESSAGE, id, notice });
      } catch (error) {
        // The channel to the primary is gone (shutting down): nobody is left to tell.
        this.log.warn({ err: error }, 'could not pass a cache invalidation to the primary');
        this.#waiting.get(id)?.();
        this.#waiting.delete(id);
      }
    });
  }

  /** Handles a message from the primary; false when it is not one of this exchange. */
  async receive(message: unknown): Promise<boolean> {
    if (isInvalidatedMessage(message)) {
      const done = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      done?.();
      return true;
    }
    if (!isInvalidateMessage(message)) return false;
    try {
      await this.apply(message.notice);
    } catch (error) {
      // Confirmed anyway: waiting longer would not help, and the poll repeats the reload.
      this.log.error({ err: error, notice: message.notice }, 'dropping caches after another worker\'s change failed');
    }
    try {
      this.send({ type: INVALIDATED_MESSAGE, id: message.id });
    } catch (error) {
      this.log.warn({ err: error }, 'could not confirm a cache invalidation to the primary');
    }
    return true;
  }
}

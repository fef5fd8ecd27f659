import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_READ_WORKER } from './sqlite-read-worker.js';

/** The code of a read that ran past CORRAL_DB_STATEMENT_TIMEOUT_MS (driver-error.ts: unavailable, 503). */
export const SQLITE_READ_TIMEOUT = 'SQLITE_READ_TIMEOUT';

/** Settings a reader thread opens its connection with (the main connection's that apply to a reader). */
export const SQLITE_READER_PRAGMAS = ['busy_timeout = 5000', 'cache_size = -16000', 'temp_store = MEMORY'] as const;

export interface SqliteReadPoolOptions {
  /** The database file (never `:memory:`: a thread cannot open another connection's memory). */
  readonly file: string;
  /** Reader threads at most (each started on first need). */
  readonly size: number;
  /** A read whose statement has run this long on its thread is abandoned (503). */
  readonly timeoutMs: number;
  /** Prepared statements kept by each thread. */
  readonly statementCache: number;
  /** Whether reads of a table are worth a thread (default: every table's). */
  readonly worth?: (table: string) => boolean;
}

type Rows = Record<string, unknown>[];

interface Job {
  readonly id: number;
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly one: boolean;
  readonly resolve: (rows: Rows) => void;
  readonly reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
  reader?: Reader;
}

interface Reader {
  readonly worker: Worker;
  /** The thread has opened its connection (start-up is never charged to a read's timeout). */
  ready: boolean;
  job?: Job;
}

type Reply = { ready: true } | { id: number; rows: Rows } | { id: number; error: { message: string; code?: unknown } };

/**
 * SQLite reads on threads of their own (node:worker_threads), each with a read-only connection
 * to the same file: better-sqlite3 runs a statement synchronously, so a long read on the main
 * connection holds the event loop, and every other request, until it ends. A read is queued,
 * handed to an idle thread (one statement per thread at a time), and answered by message; it
 * waits while every thread is busy, and its statement may then run `timeoutMs`.
 * SQLite cannot be interrupted from outside the thread that runs the statement (better-sqlite3
 * exposes no sqlite3_interrupt), so a read past the timeout is abandoned: it fails with
 * SQLITE_READ_TIMEOUT, its thread is told to terminate (it ends when the statement returns)
 * and a fresh thread takes its place. Abandoned threads still finishing count against a second
 * `size` of threads, so a flood of slow reads cannot start threads without bound.
 */
export class SqliteReadPool {
  readonly #readers = new Set<Reader>();
  readonly #queue: Job[] = [];
  readonly #driver = createRequire(import.meta.url).resolve('better-sqlite3');
  #abandoned = 0;
  #nextId = 0;
  #closed = false;

  constructor(private readonly options: SqliteReadPoolOptions) {}

  /** Whether reads of `table` are worth a thread (SqliteReadPoolOptions.worth). */
  worth(table: string): boolean {
    return this.options.worth?.(table) ?? true;
  }

  /** Rows of one read statement (`one`: at most one row is stepped), on a reader thread. */
  run(sql: string, params: readonly unknown[], one = false): Promise<Rows> {
    if (this.#closed) return Promise.reject(new Error('the SQLite reader threads are closed'));
    return new Promise<Rows>((resolve, reject) => {
      const job: Job = { id: this.#nextId++, sql, params, one, resolve, reject };
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Threads running or idle, and abandoned ones still finishing their statement (tests, metrics). */
  get threads(): { live: number; abandoned: number } {
    return { live: this.#readers.size, abandoned: this.#abandoned };
  }

  /** Fails the queued reads and ends every thread (an abandoned one ends when its statement does). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) this.#settle(job, new Error('the SQLite reader threads are closed'));
    const ending = [...this.#readers].map((reader) => {
      this.#readers.delete(reader);
      if (reader.job !== undefined) this.#settle(reader.job, new Error('the SQLite reader threads are closed'));
      return reader.worker.terminate();
    });
    await Promise.all(ending);
  }

  /** Hands queued reads to ready idle threads, and starts threads while reads wait for them. */
  #pump(): void {
    while (this.#queue.length > 0) {
      const reader = this.#idle();
      if (reader === undefined) break;
      const job = this.#queue.shift()!;
      job.reader = reader;
      reader.job = job;
      reader.worker.ref();
      job.timer = setTimeout(() => this.#expire(job), this.options.timeoutMs);
      job.timer.unref();
      try {
        reader.worker.postMessage({ id: job.id, sql: job.sql, params: job.params, one: job.one });
      } catch (error) {
        // A value that cannot cross to a thread: this read fails, the thread stays free.
        reader.job = undefined;
        reader.worker.unref();
        this.#settle(job, error as Error);
      }
    }
    let starting = 0;
    for (const reader of this.#readers) if (!reader.ready) starting++;
    const { size } = this.options;
    while (!this.#closed && this.#queue.length > starting && this.#readers.size < size && this.#readers.size + this.#abandoned < 2 * size) {
      this.#start();
      starting++;
    }
  }

  #idle(): Reader | undefined {
    for (const reader of this.#readers) if (reader.ready && reader.job === undefined) return reader;
    return undefined;
  }

  #start(): Reader {
    const { file, statementCache } = this.options;
    const worker = new Worker(SQLITE_READ_WORKER, {
      eval: true,
      workerData: { driver: this.#driver, file, pragmas: SQLITE_READER_PRAGMAS, cache: statementCache },
    });
    const reader: Reader = { worker, ready: false };
    this.#readers.add(reader);
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        reader.ready = true;
        worker.unref();
        this.#pump();
        return;
      }
      const job = reader.job;
      if (job === undefined || job.id !== reply.id) return;
      reader.job = undefined;
      worker.unref();
      if ('error' in reply) this.#settle(job, Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else this.#settle(job, undefined, toBuffers(reply.rows));
      this.#pump();
    });
    // The thread failed to start (the file cannot be opened) or died: its read fails, the next read starts a new one.
    const lost = (error: Error) => {
      if (!this.#readers.delete(reader)) return;
      if (reader.job !== undefined) this.#settle(reader.job, error);
      // A thread that could not open the file: the waiting reads fail with its error (no restart loop).
      if (!reader.ready) for (const job of this.#queue.splice(0)) this.#settle(job, error);
      this.#pump();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`a SQLite reader thread ended (exit code ${code})`)));
    return reader;
  }

  /** The read's statement ran past the timeout: its thread is abandoned. */
  #expire(job: Job): void {
    const error = Object.assign(new Error(`the read ran past ${this.options.timeoutMs} ms (CORRAL_DB_STATEMENT_TIMEOUT_MS)`), { code: SQLITE_READ_TIMEOUT });
    const reader = job.reader;
    if (reader !== undefined && this.#readers.delete(reader)) {
      reader.job = undefined;
      this.#abandoned++;
      // It must not keep the process alive for its statement's sake (at exit Node still waits for the statement to return).
      reader.worker.unref();
      void reader.worker.terminate().finally(() => {
        this.#abandoned--;
        this.#pump();
      });
    }
    this.#settle(job, error);
    this.#pump();
  }

  #settle(job: Job, error: Error | undefined, rows?: Rows): void {
    clearTimeout(job.timer);
    if (error === undefined) job.resolve(rows!);
    else job.reject(error);
  }
}

/** Blobs come back from a thread as Uint8Array: field types decode Buffers. */
function toBuffers(rows: Rows): Rows {
  for (const row of rows) {
    for (const name in row) {
      const value = row[name];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[name] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
  return rows;
}

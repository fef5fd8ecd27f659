import { request as httpRequest, type ClientRequest } from 'node:http';

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** A Server-Sent Events reader over a real socket: parses frames, keeps them in `events`. */
export interface SseClient {
  readonly events: SseEvent[];
  readonly status: Promise<number>;
  /** The `x-corral-worker` header of the answer (which worker serves the stream), '' without one. */
  readonly worker: Promise<string>;
  /** Resolves once `events` holds at least `n` events (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): SseClient {
  const events: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let req!: ClientRequest;
  let resolveStatus!: (status: number) => void;
  let resolveWorker!: (worker: string) => void;
  const worker = new Promise<string>((resolve) => (resolveWorker = resolve));
  let resolveEnded!: () => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    resolveWorker(String(res.headers['x-corral-worker'] ?? ''));
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          if (colon < 0) continue;
          fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (fields.data !== undefined) events.push({ id: Number(fields.id), event: fields.event ?? 'message', data: JSON.parse(fields.data) });
      }
      for (const waiter of waiters.splice(0)) waiter();
    });
    res.on('end', resolveEnded);
    res.on('close', resolveEnded);
  });
  req.on('error', () => {
    resolveStatus(0);
    resolveWorker('');
    resolveEnded();
  });
  req.end();
  const waitFor = (n: number, timeoutMs = 10_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`expected ${n} events, got ${events.length}`)), timeoutMs);
      const check = (): void => {
        if (events.length >= n) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { events, status, worker, ended, waitFor, close: () => req.destroy() };
}

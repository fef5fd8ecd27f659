import { request as httpRequest, type Agent, type ClientRequest, type IncomingHttpHeaders } from 'node:http';

export interface SseEvent {
  id: number;
  event: string;
  data: any;
}

/** A Server-Sent Events reader over a real socket: parses frames, keeps them in `events`. */
export interface SseClient {
  readonly events: SseEvent[];
  readonly status: Promise<number>;
  /** The answer's headers ({} when the request failed). */
  readonly headers: Promise<IncomingHttpHeaders>;
  /** The `x-corral-worker` header of the answer (which worker serves the stream), '' without one. */
  readonly worker: Promise<string>;
  /** The body of an answer that is not an event stream (an error's JSON), '' for a stream. */
  readonly text: Promise<string>;
  /** Resolves once `events` holds at least `n` events (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/** `agent`: the connection pool to use (Node's global one, which keeps connections alive, by default). */
export function openSse(url: string, headers: Record<string, string> = {}, agent?: Agent): SseClient {
  const events: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let req!: ClientRequest;
  let resolveStatus!: (status: number) => void;
  let resolveWorker!: (worker: string) => void;
  const worker = new Promise<string>((resolve) => (resolveWorker = resolve));
  let resolveEnded!: () => void;
  let resolveText!: (text: string) => void;
  let resolveHeaders!: (headers: IncomingHttpHeaders) => void;
  const answerHeaders = new Promise<IncomingHttpHeaders>((resolve) => (resolveHeaders = resolve));
  const text = new Promise<string>((resolve) => (resolveText = resolve));
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers }, ...(agent === undefined ? {} : { agent }) }, (res) => {
    resolveStatus(res.statusCode ?? 0);
    resolveHeaders(res.headers);
    resolveWorker(String(res.headers['x-corral-worker'] ?? ''));
    res.setEncoding('utf8');
    let buffer = '';
    if (!String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      let body = '';
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolveText(body));
      res.on('close', () => resolveText(body));
      res.on('end', resolveEnded);
      res.on('close', resolveEnded);
      return;
    }
    resolveText('');
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
    resolveText('');
    resolveHeaders({});
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
  return { events, status, headers: answerHeaders, worker, text, ended, waitFor, close: () => req.destroy() };
}

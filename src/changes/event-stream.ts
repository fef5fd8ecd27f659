import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ChangeEvent, ChangeFeed, FeedLog, FeedSubscriber } from './change-feed.js';
import type { ChangeRow } from './changes-table.js';
import { toEvent } from './change-feed.js';
import { ApiError } from '../errors/api-error.js';

/** A comment line this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** Bytes a subscriber may leave unread in its socket buffer before it is disconnected (it resumes by its last id). */
export const MAX_SUBSCRIBER_BUFFER_BYTES = 1024 * 1024;
/** Events a subscriber holds while its access is re-checked; past this it is disconnected (it resumes by its last id). */
export const MAX_HELD_EVENTS = 10_000;

/** What a subscriber is shown: `accept` and, when it depends on the event alone, a key for sharing renders. */
export interface StreamView {
  readonly accept: (event: ChangeEvent) => ChangeEvent | undefined;
  readonly key?: string;
}

export interface EventStreamOptions {
  readonly collection: string;
  /** Identifies `accept` when it depends on nothing but the event (see FeedSubscriber.view). */
  readonly view?: string;
  /** Events after this id are sent. */
  readonly after: number;
  /** The event as this subscriber may see it (filter, fields, permissions), or undefined to skip it. */
  readonly accept: (event: ChangeEvent) => ChangeEvent | undefined;
  /**
   * The caller's view as authorized now (after a change of users, roles or grants), or a
   * rejection with an ApiError when it may no longer read: the stream then ends with a
   * `revoked` event. Events that arrive meanwhile wait for the answer.
   */
  readonly recheck?: () => Promise<StreamView>;
  readonly headers?: OutgoingHttpHeaders;
  readonly log: FeedLog;
}

/** The frame that ends a stream whose access was taken away (docs/events.md#revocation): no id, so a resume starts where the events stopped. */
export function revokedFrame(message: string): string {
  return `event: revoked\ndata: ${JSON.stringify({ errors: [{ code: 'STREAM_REVOKED', message }] })}\n\n`;
}

/** Frames of events shared by several subscribers (unfiltered, unnarrowed): serialised once. */
const FRAMES = new WeakMap<ChangeEvent, string>();

/** One SSE frame. */
export function sseFrame(event: ChangeEvent): string {
  let frame = FRAMES.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.action}\ndata: ${JSON.stringify(event)}\n\n`;
    FRAMES.set(event, frame);
  }
  return frame;
}

/**
 * Answers a subscribe request as `text/event-stream` until the client goes, the node closes,
 * or the client reads too slowly (then it is disconnected and resumes with Last-Event-ID).
 */
export function openEventStream(feed: ChangeFeed, request: IncomingMessage, response: ServerResponse, options: EventStreamOptions): void {
  // No Connection header of our own: Node answers keep-alive or close as the client asked. A
  // forced `keep-alive` to a client that sent `Connection: close` let it reuse the connection
  // after a stream the server ended (revoked), and Node's parser refuses a request there (400).
  response.writeHead(200, {
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  // Sends the headers now, so the client knows it is subscribed.
  response.write(': subscribed\n\n');
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    feed.unsubscribe(subscriber);
    if (response.writableLength > MAX_SUBSCRIBER_BUFFER_BYTES) response.destroy();
    else response.end();
  };
  let accept = options.accept;
  let viewKey = options.view;
  /** Set while a re-check runs: the events delivered meanwhile, shown once it answers. */
  let held: ChangeRow[] | undefined;
  /** A change arrived during the re-check: check once more before showing anything. */
  let again = false;
  const render = (rows: readonly ChangeRow[]): Buffer => {
    let text = '';
    for (const row of rows) {
      const event = accept(toEvent(row));
      if (event !== undefined) text += sseFrame(event);
    }
    return Buffer.from(text, 'utf8');
  };
  const subscriber: FeedSubscriber = {
    collection: options.collection,
    ...(options.view === undefined ? {} : { view: options.view }),
    cursor: options.after,
    deliver(rows, shared) {
      if (closed) return false;
      if (held !== undefined) {
        for (const row of rows) held.push(row);
        return held.length <= MAX_HELD_EVENTS;
      }
      const key = shared === undefined ? undefined : viewKey;
      let bytes = key === undefined ? undefined : shared!.get(key);
      if (bytes === undefined) {
        bytes = render(rows);
        if (key !== undefined) shared!.set(key, bytes);
      }
      if (bytes.length > 0) response.write(bytes);
      return response.writableLength <= MAX_SUBSCRIBER_BUFFER_BYTES;
    },
    drop: close,
    ...(options.recheck === undefined ? {} : { recheck: () => recheck(options.recheck!) }),
  };
  const recheck = (check: () => Promise<StreamView>): void => {
    if (closed) return;
    if (held !== undefined) {
      again = true;
      return;
    }
    held = [];
    void (async () => {
      let view: StreamView;
      do {
        again = false;
        try {
          view = await check();
        } catch (error) {
          held = undefined;
          if (closed) return;
          if (error instanceof ApiError) response.write(revokedFrame(error.message));
          // Not a refusal (the database failed): ended all the same, the client resumes and is checked afresh.
          else options.log.error({ err: error }, 'checking a stream\'s access again failed; ending it');
          close();
          return;
        }
      } while (again && !closed);
      const rows = held;
      held = undefined;
      if (closed) return;
      accept = view.accept;
      viewKey = view.key;
      if (rows.length > 0) {
        const bytes = render(rows);
        if (bytes.length > 0) response.write(bytes);
        if (response.writableLength > MAX_SUBSCRIBER_BUFFER_BYTES) close();
      }
    })();
  };
  const heartbeat = setInterval(() => {
    if (!closed) response.write(': heartbeat\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  request.on('close', close);
  response.on('close', close);
  feed.subscribe(subscriber).catch((error: unknown) => {
    options.log.error({ err: error }, 'a subscriber could not catch up with the change feed');
    close();
  });
}

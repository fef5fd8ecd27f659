import { API_PREFIX, headers } from './api';
import { sseEvents } from './sse';

export interface ChangeEvent {
  id: number;
  collection: string;
  action: 'create' | 'update' | 'destroy';
  key: unknown;
  data: Record<string, unknown>;
  at: string;
}

/**
 * Follows `<collection>:subscribe` (Server-Sent Events) with fetch, since EventSource cannot send
 * the Authorization header; reconnects after a drop, resuming with Last-Event-ID. Returns a stop function.
 */
export function subscribe(collection: string, onEvent: (event: ChangeEvent) => void, onState?: (live: boolean) => void): () => void {
  const controller = new AbortController();
  let lastId: string | undefined;
  let stopped = false;
  const run = async (): Promise<void> => {
    while (!stopped) {
      try {
        const response = await fetch(`${API_PREFIX}/${encodeURIComponent(collection)}:subscribe`, {
          headers: headers({ accept: 'text/event-stream', ...(lastId === undefined ? {} : { 'last-event-id': lastId }) }),
          signal: controller.signal,
        });
        if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
        onState?.(true);
        for await (const { id, data } of sseEvents(response.body)) {
          if (id !== undefined) lastId = id;
          if (data !== '') onEvent(JSON.parse(data) as ChangeEvent);
        }
      } catch {
        if (stopped) return;
      }
      onState?.(false);
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}

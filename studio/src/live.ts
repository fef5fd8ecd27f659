import { API_PREFIX, headers } from './api';

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
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('id:')) lastId = line.slice(3).trim();
              else if (line.startsWith('data:')) data += line.slice(5).trim();
            }
            if (data !== '') onEvent(JSON.parse(data) as ChangeEvent);
          }
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

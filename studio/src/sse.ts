/** One Server-Sent Event as the studio reads it: its name, id and joined data lines. */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/** The events of a `text/event-stream` body, as they arrive (comments and keep-alives skipped). */
export async function* sseEvents(body: NonNullable<Response['body']>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const out: SseEvent = { event: 'message', data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) out.event = line.slice(6).trim();
        else if (line.startsWith('id:')) out.id = line.slice(3).trim();
        else if (line.startsWith('data:')) out.data += line.slice(5).trim();
      }
      if (out.data !== '' || out.id !== undefined) yield out;
    }
  }
}

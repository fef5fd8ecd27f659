// Follows the changes of one collection in a browser. EventSource cannot send an Authorization
// header, so each connection first asks for a one-minute stream ticket with the token (fetch can
// send headers), then opens the stream with the ticket in its URL. A ticket opens one
// connection: when the stream drops, a new ticket resumes after the last event seen.
function follow(collection, query, token, onEvent) {
  let last;
  let source;
  let stopped = false;
  const open = async () => {
    const params = new URLSearchParams(query);
    if (last !== undefined) params.set('after', String(last));
    const answer = await fetch(`/api/${collection}:subscribe?${params}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    if (!answer.ok) throw new Error(`no stream ticket: ${answer.status}`);
    const { data } = await answer.json();
    params.set('ticket', data.ticket);
    source = new EventSource(`/api/${collection}:subscribe?${params}`);
    for (const action of ['create', 'update', 'destroy']) {
      source.addEventListener(action, (message) => {
        const event = JSON.parse(message.data);
        last = event.id;
        onEvent(event);
      });
    }
    source.addEventListener('error', () => {
      // EventSource retries with the same URL, whose ticket is spent: open anew instead.
      source.close();
      if (!stopped) setTimeout(() => open().catch(console.error), 1000);
    });
  };
  open().catch(console.error);
  return () => {
    stopped = true;
    source?.close();
  };
}

import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import type { ChangeEvent } from './live';
import type { Collection } from './schema';
import { Problems, useAction } from './ui';

interface Webhook {
  id: number;
  url: string;
  collections: string[];
  actions?: string[] | null;
  active: boolean;
}
interface Delivery {
  id: number;
  eventId: number;
  status: string;
  attempts: number;
  lastError?: string | null;
  nextAttemptAt?: string | null;
}

/** The change feed (latest first, by collection) and webhooks with their deliveries. */
export function EventsScreen({ collections }: { collections: Collection[] }) {
  const [collection, setCollection] = useState('');
  const [events, setEvents] = useState<ChangeEvent[]>([]);
  const [, error, run] = useAction();
  const load = () => run(async () => {
    // The feed reads forward from an id: walk to its end (a few pages), keep the latest 50.
    let after: number | undefined;
    let all: ChangeEvent[] = [];
    for (let pages = 0; pages < 20; pages++) {
      const answer = await call<ChangeEvent[]>('GET', 'changes:list', { query: { after, collection: collection || undefined, pageSize: 1000 } });
      all = [...all, ...answer.data].slice(-50);
      if (answer.meta?.hasNext !== true || answer.data.length === 0) break;
      after = answer.data[answer.data.length - 1]!.id;
    }
    setEvents(all.reverse());
  });
  useEffect(() => void load(), [collection]);
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <Problems error={error} />
      <div class="toolbar">
        <label>Collection
          <select value={collection} onChange={(e) => setCollection(e.currentTarget.value)}>
            <option value="">all</option>
            {collections.map((candidate) => <option value={candidate.name}>{candidate.name}</option>)}
          </select>
        </label>
        <button type="button" onClick={() => void load()}>Refresh</button>
      </div>
      <div class="table-wrap">
        <table class="grid">
          <thead><tr><th scope="col">Id</th><th scope="col">At</th><th scope="col">Collection</th><th scope="col">Action</th><th scope="col">Key</th><th scope="col">Data</th></tr></thead>
          <tbody>
            {events.map((event) => (
              <tr><td>{event.id}</td><td>{event.at}</td><td>{event.collection}</td><td>{event.action}</td><td>{String(event.key)}</td><td><code class="clip">{JSON.stringify(event.data)}</code></td></tr>
            ))}
          </tbody>
        </table>
      </div>
      <Webhooks collections={collections} />
    </section>
  );
}

function Webhooks({ collections }: { collections: Collection[] }) {
  const [hooks, setHooks] = useState<Webhook[]>([]);
  const [open, setOpen] = useState<number | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [target, setTarget] = useState('*');
  const [busy, error, run] = useAction();
  const load = () => run(async () => setHooks((await call<Webhook[]>('GET', 'webhooks:list', { query: { paginate: false } })).data));
  useEffect(() => void load(), []);
  const loadDeliveries = async (hook: number) => setDeliveries((await call<Delivery[]>('GET', `webhooks/${hook}/deliveries:list`, { query: { sort: '-eventId' } })).data);
  useEffect(() => {
    if (open !== null) void run(() => loadDeliveries(open));
  }, [open]);
  /** Sends a delivery again (deliveries:retry): a failed or delivered one anew, a pending one now. */
  const retry = (hook: number, delivery: Delivery) => void run(async () => {
    await call('POST', `webhooks/${hook}/deliveries:retry/${delivery.id}`);
    await loadDeliveries(hook);
  });
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await call('POST', 'webhooks:create', { body: { url, secret, collections: [target], active: true } });
      setUrl('');
      setSecret('');
      await load();
    });
  };
  const toggle = (hook: Webhook) => void run(async () => {
    await call('POST', `webhooks:update/${hook.id}`, { body: { active: !hook.active } });
    await load();
  });
  return (
    <section class="card" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <Problems error={error} />
      <ul class="plain">
        {hooks.map((hook) => (
          <li>
            <button type="button" aria-expanded={open === hook.id} onClick={() => setOpen(open === hook.id ? null : hook.id)}>{hook.url}</button>
            <span class="muted"> {hook.collections.join(', ')} · {hook.active ? 'active' : 'paused'}</span>
            <button type="button" onClick={() => toggle(hook)}>{hook.active ? 'Pause' : 'Resume'}</button>
            {open === hook.id && (
              <table class="grid">
                <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
                <tbody>{deliveries.map((delivery) => (
                  <tr>
                    <td>{delivery.eventId}</td><td>{delivery.status}</td><td>{delivery.attempts}</td><td>{delivery.lastError ?? ''}</td><td>{delivery.nextAttemptAt ?? ''}</td>
                    <td><button type="button" disabled={busy} aria-label={`Retry the delivery of event ${delivery.eventId}`} onClick={() => retry(hook.id, delivery)}>Retry</button></td>
                  </tr>
                ))}</tbody>
              </table>
            )}
          </li>
        ))}
      </ul>
      <form onSubmit={create} class="row" aria-label="New webhook">
        <label>URL<input name="url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></label>
        <label>Secret<input name="secret" required minLength={8} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} /></label>
        <label>Collections<select value={target} onChange={(e) => setTarget(e.currentTarget.value)}><option value="*">all (*)</option>{collections.map((candidate) => <option>{candidate.name}</option>)}</select></label>
        <button type="submit" class="primary" disabled={busy}>Create webhook</button>
      </form>
    </section>
  );
}

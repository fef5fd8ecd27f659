import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import type { User } from './sign-in';
import { Confirm, Problems, useAction } from './ui';

interface ApiKey {
  id: number;
  name: string;
  role: string;
  expiresAt?: string | null;
}

/** API keys: create one (its token is shown once), list, revoke. */
export function ApiKeys({ user }: { user: User }) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [name, setName] = useState('');
  const [role, setRole] = useState('');
  const [expiresIn, setExpiresIn] = useState('');
  const [token, setToken] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [busy, error, run] = useAction();
  const load = () => run(async () => setKeys((await call<ApiKey[]>('GET', 'apiKeys:list', { query: { paginate: false } })).data));
  useEffect(() => void load(), []);
  const mine = (user.roles ?? []).map((name) => ({ name }));
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answer = await call<{ id: number; token: string }>('POST', 'apiKeys:create', { body: { name, role: role || mine[0]?.name, ...(expiresIn === '' ? {} : { expiresIn }) } });
      setToken(answer.data.token);
      setName('');
      await load();
    });
  };
  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <Problems error={error} />
      {token !== null && (
        <div class="notice" role="status">
          <p>Copy this key now: it is shown only once.</p>
          <label>New API key<textarea readOnly rows={3} value={token} data-testid="new-api-key" /></label>
          <button type="button" onClick={() => setToken(null)}>I have copied it</button>
        </div>
      )}
      <table class="grid">
        <thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>
          {keys.map((key) => (
            <tr data-api-key={key.name}>
              <td>{key.name}</td><td>{key.role}</td><td>{key.expiresAt ?? 'never'}</td>
              <td>
                <button type="button" class="danger" onClick={() => setRevoking(key.id)} aria-label={`Revoke ${key.name}`}>Revoke</button>
                {revoking === key.id && <Confirm action={`Revoke ${key.name}`} message={<p>Revoke key {key.name}? Clients using it are refused at once.</p>} onCancel={() => setRevoking(null)}
                  onConfirm={() => void run(async () => { await call('POST', `apiKeys:destroy/${key.id}`); setRevoking(null); await load(); })} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={create} class="row" aria-label="New API key">
        <label>Key name<input name="keyName" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <label>Role<select name="keyRole" value={role} onChange={(e) => setRole(e.currentTarget.value)}>{mine.map((candidate) => <option value={candidate.name}>{candidate.name}</option>)}</select></label>
        <label>Expires in<input name="expiresIn" placeholder="e.g. 30d" value={expiresIn} onInput={(e) => setExpiresIn(e.currentTarget.value)} /></label>
        <button type="submit" class="primary" disabled={busy}>Create key</button>
      </form>
    </section>
  );
}

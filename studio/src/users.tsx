import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import type { User } from './sign-in';
import { FieldError, fieldErrorsOf, Problems, useAction } from './ui';

/** Users: create, disable or enable, set roles, reset the password. */
export function Users({ roles }: { roles: { name: string }[] }) {
  const [users, setUsers] = useState<User[]>([]);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [resetting, setResetting] = useState<{ id: number; password: string } | null>(null);
  const [busy, error, run] = useAction();
  const fieldErrors = fieldErrorsOf(error);
  const load = () => run(async () => setUsers((await call<User[]>('GET', 'users:list', { query: { paginate: false } })).data));
  useEffect(() => void load(), []);
  const update = (id: number, body: Record<string, unknown>) => void run(async () => {
    await call('POST', `users:update/${id}`, { body });
    setResetting(null);
    await load();
  });
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await call('POST', 'users:create', { body: { email, password, roles: chosen } });
      setEmail('');
      setPassword('');
      setChosen([]);
      await load();
    });
  };
  return (
    <section class="card" aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <Problems error={error} shown={["email"]} />
      <div class="table-wrap">
        <table class="grid">
          <thead><tr><th scope="col">Email</th><th scope="col">Roles</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {users.map((user) => (
              <tr data-user={user.email}>
                <td>{user.email}</td>
                <td>
                  {roles.map((role) => (
                    <label class="check"><input type="checkbox" checked={(user.roles ?? []).includes(role.name)} onChange={(e) => update(user.id, { roles: e.currentTarget.checked ? [...(user.roles ?? []), role.name] : (user.roles ?? []).filter((r) => r !== role.name) })} />{role.name}</label>
                  ))}
                </td>
                <td>{user.disabled ? 'disabled' : 'active'}</td>
                <td class="actions">
                  <button type="button" onClick={() => update(user.id, { disabled: !user.disabled })}>{user.disabled ? 'Enable' : 'Disable'}</button>
                  {resetting?.id === user.id ? (
                    <form class="inline" onSubmit={(event) => { event.preventDefault(); update(user.id, { password: resetting.password }); }}>
                      <label><span class="visually-hidden">New password for {user.email}</span><input type="password" autocomplete="new-password" required value={resetting.password} onInput={(e) => setResetting({ id: user.id, password: e.currentTarget.value })} /></label>
                      <button type="submit" disabled={busy}>Set</button>
                    </form>
                  ) : <button type="button" onClick={() => setResetting({ id: user.id, password: '' })}>Reset password</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form onSubmit={create} class="row" aria-label="New user">
        <label>Email<input name="email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} aria-describedby="user-email-error" /></label>
        <FieldError id="user-email-error" message={fieldErrors.email} />
        <label>Password<input name="password" type="password" autocomplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <fieldset class="inline-set"><legend>Roles</legend>
          {roles.map((role) => <label class="check"><input type="checkbox" name="userRole" value={role.name} checked={chosen.includes(role.name)} onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, role.name] : chosen.filter((r) => r !== role.name))} />{role.name}</label>)}
        </fieldset>
        <button type="submit" class="primary" disabled={busy}>Create user</button>
      </form>
    </section>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { call } from './api';
import { emptyGroup, FilterBuilder, filterPaths, toFilter, type Group } from './filter-builder';
import { scalarFields, type Collection } from './schema';
import type { User } from './sign-in';
import { ApiKeys } from './api-keys';
import { Users } from './users';
import { Problems, useAction } from './ui';

interface Role {
  name: string;
  title?: string | null;
  strategy?: { actions?: string[] } | null;
}
interface Grant {
  name: string;
  actions: { name: string; fields?: string[]; filter?: Record<string, unknown> }[];
}
const ACTIONS = ['view', 'create', 'update', 'destroy'];

/** Users, roles with their per-collection grants, and API keys. */
export function AccessScreen({ collections, user }: { collections: Collection[]; user: User }) {
  const [roles, setRoles] = useState<Role[]>([]);
  const [, error, run] = useAction();
  const loadRoles = () => run(async () => setRoles((await call<Role[]>('GET', 'roles:list', { query: { paginate: false } })).data));
  useEffect(() => void loadRoles(), []);
  return (
    <section aria-labelledby="access-title">
      <h1 id="access-title">Access</h1>
      <Problems error={error} />
      <Roles roles={roles} collections={collections} onChanged={loadRoles} />
      <Users roles={roles} />
      <ApiKeys user={user} />
    </section>
  );
}

function Roles({ roles, collections, onChanged }: { roles: Role[]; collections: Collection[]; onChanged: () => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [actions, setActions] = useState<string[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const [busy, error, run] = useAction();
  const create = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await call('POST', 'roles:create', { body: { name, strategy: { actions } } });
      setName('');
      setActions([]);
      await onChanged();
      setOpen(name);
    });
  };
  return (
    <section class="card" aria-labelledby="roles-title">
      <h2 id="roles-title">Roles</h2>
      <Problems error={error} />
      <ul class="plain">
        {roles.map((role) => (
          <li data-role={role.name}>
            <button type="button" aria-expanded={open === role.name} onClick={() => setOpen(open === role.name ? null : role.name)}>{role.name}</button>
            <span class="muted"> every collection: {(role.strategy?.actions ?? []).join(', ') || 'nothing'}</span>
            {open === role.name && <Grants role={role.name} collections={collections} />}
          </li>
        ))}
      </ul>
      <form onSubmit={create} class="row" aria-label="New role">
        <label>Role name<input name="roleName" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <fieldset class="inline-set"><legend>On every collection</legend>
          {ACTIONS.map((action) => <label class="check"><input type="checkbox" checked={actions.includes(action)} onChange={(e) => setActions(e.currentTarget.checked ? [...actions, action] : actions.filter((a) => a !== action))} />{action}</label>)}
        </fieldset>
        <button type="submit" class="primary" disabled={busy}>Create role</button>
      </form>
    </section>
  );
}

/** One role's grants per collection: actions, a row filter (the filter builder), field lists. */
function Grants({ role, collections }: { role: string; collections: Collection[] }) {
  const [grants, setGrants] = useState<Grant[]>([]);
  const [collection, setCollection] = useState('');
  const [actions, setActions] = useState<string[]>(['view']);
  const [fields, setFields] = useState<string[]>([]);
  const [group, setGroup] = useState<Group>(emptyGroup);
  const [busy, error, run] = useAction();
  const base = `roles/${encodeURIComponent(role)}/resources`;
  const load = () => run(async () => setGrants((await call<Grant[]>('GET', `${base}:list`, { query: { paginate: false } })).data));
  useEffect(() => void load(), [role]);
  const target = collections.find((candidate) => candidate.name === collection);
  const paths = target === undefined ? [] : filterPaths(target, collections);
  const save = (event: Event) => {
    event.preventDefault();
    const filter = toFilter(group, paths);
    void run(async () => {
      const body = { name: collection, actions: actions.map((action) => ({ name: action, ...(fields.length === 0 ? {} : { fields }), ...(filter === undefined ? {} : { filter }) })) };
      if (grants.some((grant) => grant.name === collection)) await call('POST', `${base}:update/${encodeURIComponent(collection)}`, { body });
      else await call('POST', `${base}:create`, { body });
      await load();
    });
  };
  const drop = (name: string) => void run(async () => {
    await call('POST', `${base}:destroy/${encodeURIComponent(name)}`);
    await load();
  });
  return (
    <div class="grants">
      <Problems error={error} />
      <table class="grid">
        <thead><tr><th scope="col">Collection</th><th scope="col">Actions</th><th scope="col">Fields</th><th scope="col">Row filter</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
        <tbody>
          {grants.map((grant) => (
            <tr data-grant={grant.name}>
              <td>{grant.name}</td>
              <td>{grant.actions.map((action) => action.name).join(', ')}</td>
              <td>{[...new Set(grant.actions.flatMap((action) => action.fields ?? []))].join(', ') || 'all'}</td>
              <td><code>{grant.actions.map((action) => (action.filter === undefined ? '' : JSON.stringify(action.filter))).find((text) => text !== '') ?? ''}</code></td>
              <td><button type="button" onClick={() => drop(grant.name)}>Remove</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={save} aria-label={`Grant for ${role}`}>
        <label>Collection
          <select name="grantCollection" required value={collection} onChange={(e) => { setCollection(e.currentTarget.value); setFields([]); setGroup(emptyGroup()); }}>
            <option value="">choose…</option>
            {collections.map((candidate) => <option value={candidate.name}>{candidate.name}</option>)}
          </select>
        </label>
        <fieldset class="inline-set"><legend>Actions</legend>
          {ACTIONS.map((action) => <label class="check"><input type="checkbox" checked={actions.includes(action)} onChange={(e) => setActions(e.currentTarget.checked ? [...actions, action] : actions.filter((a) => a !== action))} />{action}</label>)}
        </fieldset>
        {target !== undefined && (
          <>
            <fieldset class="inline-set"><legend>Fields (none checked: all)</legend>
              {scalarFields(target).map((field) => <label class="check"><input type="checkbox" name="grantField" value={field.name} checked={fields.includes(field.name)} onChange={(e) => setFields(e.currentTarget.checked ? [...fields, field.name] : fields.filter((f) => f !== field.name))} />{field.name}</label>)}
            </fieldset>
            <p class="muted">Row filter (rows outside it behave as missing):</p>
            <FilterBuilder group={group} paths={paths} onChange={setGroup} />
          </>
        )}
        <button type="submit" class="primary" disabled={busy}>Save grant</button>
      </form>
    </div>
  );
}

import { useCallback, useEffect, useState } from 'preact/hooks';
import { API_PREFIX, ApiFailure, call, messageOf, session, whenUnauthorized } from './api';
import { href, onLink, useRoute } from './router';
import type { Collection } from './schema';
import { schemaFromOpenApi } from './schema-from-openapi';
import { SignIn, type User } from './sign-in';
import { CollectionsScreen } from './collections';
import { FieldsScreen } from './fields';
import { RecordsScreen } from './records';
import { AccessScreen } from './access';
import { EventsScreen } from './events';

/** The whole studio: sign-in, then the shell (navigation, user, role) around one screen. */
export function App() {
  const [user, setUser] = useState<User | null>(null);
  const [checking, setChecking] = useState(session.token !== null);
  const [collections, setCollections] = useState<Collection[]>([]);
  const [loadError, setLoadError] = useState('');
  const route = useRoute();

  const signOut = useCallback(async (revoke: boolean) => {
    if (revoke) await call('POST', 'auth:signOut').catch(() => undefined);
    session.token = null;
    session.role = null;
    setUser(null);
    setCollections([]);
  }, []);

  const reload = useCallback(async () => {
    try {
      try {
        const answer = await call<Collection[]>('GET', 'collections:list', { query: { paginate: false } });
        setCollections(answer.data);
      } catch (error) {
        // A role that may not read the schema still sees its collections through openapi.json.
        if (!(error instanceof ApiFailure) || error.status !== 403) throw error;
        setCollections(await schemaFromOpenApi());
      }
      setLoadError('');
    } catch (error) {
      setLoadError(messageOf(error));
    }
  }, []);

  useEffect(() => {
    whenUnauthorized(() => void signOut(false));
    if (session.token === null) return;
    call<User>('GET', 'auth:check')
      .then((answer) => setUser(answer.data))
      .catch(() => signOut(false))
      .finally(() => setChecking(false));
  }, []);

  useEffect(() => {
    if (user !== null) void reload();
  }, [user]);

  if (checking) return <p class="centered">Loading…</p>;
  if (user === null) return <SignIn onSignedIn={(signedIn) => setUser(signedIn)} />;

  const [screen = 'collections', name, sub] = route;
  const collection = name === undefined ? undefined : collections.find((candidate) => candidate.name === name);
  const switchRole = (role: string) => {
    session.role = role;
    // Everything the screens show depends on the role: start them afresh.
    setUser({ ...user });
  };

  let body;
  if (screen === 'access') body = <AccessScreen collections={collections} user={user} />;
  else if (screen === 'events') body = <EventsScreen collections={collections} />;
  else if (name !== undefined && collection === undefined) body = <p role="alert">{collections.length === 0 ? 'Loading…' : `No collection named ${name}.`}</p>;
  else if (collection !== undefined && sub === 'fields') body = <FieldsScreen collection={collection} collections={collections} onChanged={reload} />;
  else if (collection !== undefined) body = <RecordsScreen key={`${collection.name}-${session.role ?? ''}`} collection={collection} collections={collections} />;
  else body = <CollectionsScreen collections={collections} onChanged={reload} />;

  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href={href('collections')} onClick={onLink}>Corral Studio</a>
        <nav aria-label="Main">
          <a href={href('collections')} onClick={onLink} aria-current={screen === 'collections' ? 'page' : undefined}>Collections</a>
          <a href={href('access')} onClick={onLink} aria-current={screen === 'access' ? 'page' : undefined}>Access</a>
          <a href={href('events')} onClick={onLink} aria-current={screen === 'events' ? 'page' : undefined}>Events</a>
          <a href={`${API_PREFIX}/docs`}>API docs</a>
        </nav>
        <div class="who">
          <span data-testid="current-user">{user.nickname ?? user.username ?? user.email}</span>
          <label>
            <span class="visually-hidden">Role</span>
            <select value={session.role ?? ''} onChange={(event) => switchRole((event.currentTarget as HTMLSelectElement).value)} aria-label="Role">
              <option value="">all my roles</option>
              {(user.roles ?? []).map((role) => <option value={role}>{role}</option>)}
            </select>
          </label>
          <button type="button" onClick={() => void signOut(true)}>Sign out</button>
        </div>
      </header>
      {loadError !== '' && <p role="alert" class="error">{loadError}</p>}
      <main id="main" key={`${user.id}-${session.role ?? ''}`}>{body}</main>
    </div>
  );
}

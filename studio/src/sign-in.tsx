import { useState } from 'preact/hooks';
import { ApiFailure, call, messageOf, session } from './api';

export interface User {
  id: number;
  email: string;
  username?: string | null;
  nickname?: string | null;
  roles?: string[];
  disabled?: boolean;
}

/** Account and password, or a pasted API key; the token stays in this tab's sessionStorage. */
export function SignIn({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  const [mode, setMode] = useState<'password' | 'key'>('password');
  const [account, setAccount] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      if (mode === 'password') {
        const answer = await call<{ user: User; token: string }>('POST', 'auth:signIn', { body: { account, password } });
        session.token = answer.data.token;
        onSignedIn(answer.data.user);
      } else {
        session.token = key.trim();
        const answer = await call<User>('GET', 'auth:check');
        onSignedIn(answer.data);
      }
    } catch (failure) {
      if (mode === 'key') session.token = null;
      setError(failure instanceof ApiFailure ? failure.message : messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Corral Studio</h1>
        <div class="tabs" role="group" aria-label="Sign in with">
          <button type="button" aria-pressed={mode === 'password'} onClick={() => setMode('password')}>Password</button>
          <button type="button" aria-pressed={mode === 'key'} onClick={() => setMode('key')}>API key</button>
        </div>
        {mode === 'password' ? (
          <>
            <label>Email or username<input name="account" autocomplete="username" required value={account} onInput={(e) => setAccount(e.currentTarget.value)} /></label>
            <label>Password<input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
          </>
        ) : (
          <label>API key<textarea name="apiKey" rows={4} required value={key} onInput={(e) => setKey(e.currentTarget.value)} /></label>
        )}
        {error !== '' && <p role="alert" class="error">{error}</p>}
        <button type="submit" class="primary" disabled={busy}>Sign in</button>
      </form>
    </main>
  );
}

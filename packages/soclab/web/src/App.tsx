import { useCallback, useEffect, useState } from 'react';
import { api, tokenStore, useApi } from './api';
import { ErrorNote } from './components/ui';
import { Approvals } from './pages/Approvals';
import { CampaignPage } from './pages/CampaignPage';
import { Campaigns } from './pages/Campaigns';
import { NewCampaign } from './pages/NewCampaign';
import { Replay } from './pages/Replay';
import { link, useRoute } from './router';
import type { Me, PendingApproval } from './types';

function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    tokenStore.set(token.trim());
    try {
      onSignedIn(await api.get<Me>('/api/v1/version'));
      setError(null);
    } catch (e) {
      tokenStore.clear();
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <h1>soclab console</h1>
      <p className="muted">
        Paste an API token. Roles: viewer (read), operator (start campaigns), approver (decide approvals), admin. The
        token stays in this tab only.
      </p>
      <form onSubmit={submit}>
        <label>
          API token
          <input
            name="token"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            required
          />
        </label>
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
      <ErrorNote error={error} />
    </main>
  );
}

function Nav({ me, onSignOut, active }: { me: Me; onSignOut: () => void; active: string }) {
  const pending = useApi<PendingApproval[]>('/api/v1/approvals', { live: true, everyMs: 3000 });
  const count = pending.data?.length ?? 0;
  const item = (key: string, href: string, label: React.ReactNode) => (
    <a href={href} className={active === key ? 'active' : undefined}>
      {label}
    </a>
  );
  return (
    <nav className="topbar">
      <a className="brand" href={link(['campaigns'])}>
        soclab
      </a>
      {item('campaigns', link(['campaigns']), 'Campaigns')}
      {item('new', link(['new']), 'Start a campaign')}
      {item(
        'approvals',
        link(['approvals']),
        <>
          Approvals{' '}
          {count > 0 ? (
            <span className="count" data-testid="approvals-count">
              {count}
            </span>
          ) : null}
        </>,
      )}
      <a href="/api/docs/" target="_blank" rel="noreferrer">
        API docs
      </a>
      <span className="spacer" />
      <span className="who">
        {me.you.name} <span className="muted">({me.you.role})</span>
      </span>
      <button type="button" className="link" onClick={onSignOut}>
        Sign out
      </button>
    </nav>
  );
}

export function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | null>(null);
  const [checked, setChecked] = useState(false);

  useEffect(() => {
    if (!tokenStore.get()) {
      setChecked(true);
      return;
    }
    api
      .get<Me>('/api/v1/version')
      .then(setMe)
      .catch(() => tokenStore.clear())
      .finally(() => setChecked(true));
  }, []);
  const signOut = useCallback(() => {
    tokenStore.clear();
    setMe(null);
  }, []);
  useEffect(() => {
    window.addEventListener('soclab:unauthenticated', signOut);
    return () => window.removeEventListener('soclab:unauthenticated', signOut);
  }, [signOut]);

  if (!checked) return null;
  if (!me) return <SignIn onSignedIn={setMe} />;

  const [page = 'campaigns', id] = route.segments;
  let body: React.ReactNode;
  if (page === 'new') body = <NewCampaign me={me} />;
  else if (page === 'approvals') body = <Approvals me={me} />;
  else if (page === 'campaigns' && id) body = <CampaignPage id={id} query={route.query} />;
  else if (page === 'runs' && id) body = <Replay runId={id} query={route.query} />;
  else body = <Campaigns me={me} />;
  return (
    <>
      <Nav me={me} onSignOut={signOut} active={page === 'runs' ? 'campaigns' : page} />
      <main>{body}</main>
    </>
  );
}

import { useEffect, useState } from 'react';
import { ApiKeys } from './pages/ApiKeys';
import { Files } from './pages/Files';
import { Logs } from './pages/Logs';
import { Personas } from './pages/Personas';
import { Playground } from './pages/Playground';
import { Results } from './pages/Results';
import { SignIn } from './pages/SignIn';
import { Usage } from './pages/Usage';
import { SessionGate, useSignedIn, useSignOut } from './session';

const PAGES = {
  keys: { title: 'API keys', render: () => <ApiKeys /> },
  usage: { title: 'Usage', render: () => <Usage /> },
  playground: { title: 'Playground', render: () => <Playground /> },
  personas: { title: 'Personas', render: () => <Personas /> },
  results: { title: 'Results', render: () => <Results /> },
  logs: { title: 'Logs', render: () => <Logs /> },
  files: { title: 'Files', render: () => <Files /> },
} as const;
type PageName = keyof typeof PAGES;

/** Hash routes (`#/keys`): the server serves one index.html under /console/, no router needed. */
function currentPage(): PageName {
  const name = window.location.hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return name in PAGES ? (name as PageName) : 'keys';
}

function Shell() {
  const { session } = useSignedIn();
  const signOut = useSignOut();
  const [page, setPage] = useState<PageName>(currentPage);
  useEffect(() => {
    const onChange = () => setPage(currentPage());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  useEffect(() => {
    document.title = `${PAGES[page].title} · Persona API console`;
  }, [page]);
  return (
    <>
      <header className="top">
        <span className="brand">Persona API</span>
        <nav aria-label="Console">
          <span className="nav-group">Developer</span>
          {(Object.keys(PAGES) as PageName[]).map((name) => (
            <a key={name} href={`#/${name}`} aria-current={name === page ? 'page' : undefined}>
              {PAGES[name].title}
            </a>
          ))}
        </nav>
        <span className="who">
          {session.user.email} · {session.account.name}{' '}
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <main>{PAGES[page].render()}</main>
    </>
  );
}

export function App() {
  return (
    <SessionGate signedOut={<SignIn />}>
      <Shell />
    </SessionGate>
  );
}

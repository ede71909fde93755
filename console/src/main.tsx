// The console's entry: the shell (header, navigation, theme), sign-in and the markets table load
// first; the pair chart, the account and the admin areas are chunks of their own, fetched on use.
import './styles.css';
import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { watchAccount } from './live.ts';
import { MarketsPage } from './pages/markets.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { navigate, useRoute } from './router.ts';
import { resume, session, signOut } from './session.ts';
import { Link } from './ui.tsx';

type Theme = 'light' | 'dark';
const THEME_KEY = 'console-theme';

function initialTheme(): Theme {
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function useSession() {
  const [, setVersion] = useState(0);
  const rendered = session.version;
  useEffect(() => {
    const unsubscribe = session.subscribe(() => setVersion((v) => v + 1));
    // Effects run after the first paint: a session settled before then (the refresh at start answers
    // in a millisecond on a fast server) would otherwise leave the view on "Loading…" for good.
    if (session.version !== rendered) setVersion((v) => v + 1);
    return unsubscribe;
  }, []);
  return session;
}

/** A page from a chunk of its own, loaded when first shown. */
function lazyPage(load: () => Promise<{ default: ComponentType<{ path: string; query: URLSearchParams }> }>) {
  let loaded: ComponentType<{ path: string; query: URLSearchParams }> | null = null;
  return function Lazy(props: { path: string; query: URLSearchParams }) {
    const [component, setComponent] = useState(() => loaded);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (loaded) return;
      load().then(
        (module) => setComponent(() => (loaded = module.default)),
        () => setError('This page could not be loaded; reload to try again.'),
      );
    }, []);
    if (error)
      return (
        <p role="alert" class="error">
          {error}
        </p>
      );
    const Component = component;
    return Component ? (
      <Component {...props} />
    ) : (
      <p role="status" class="muted">
        Loading…
      </p>
    );
  };
}

const PairPage = lazyPage(() => import('./pages/pair.tsx'));
const AccountPage = lazyPage(() => import('./pages/account/account.tsx'));
const AdminPage = lazyPage(() => import('./pages/admin/admin.tsx'));

function Header(props: { path: string; theme: Theme; toggleTheme: () => void }) {
  const { user } = useSession();
  const area = props.path.split('/')[1] || 'markets';
  const current = (name: string) => (area === name ? 'page' : undefined);
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <span class="brand">Trading Platform</span>
      <nav aria-label="Main">
        <Link href="/markets" aria-current={current('markets')}>
          Markets
        </Link>
        <Link href="/account" aria-current={current('account')}>
          Account
        </Link>
        {user?.role === 'admin' ? (
          <Link href="/admin" aria-current={current('admin')}>
            Admin
          </Link>
        ) : null}
      </nav>
      <div class="top-actions">
        <button type="button" class="ghost" onClick={props.toggleTheme} aria-pressed={props.theme === 'dark'}>
          Dark theme
        </button>
        {user ? (
          <>
            <span class="who" title={user.email}>
              {user.email}
            </span>
            <button type="button" onClick={() => void signOut().then(() => navigate('/sign-in'))}>
              Sign out
            </button>
          </>
        ) : (
          <Link href="/sign-in" class="button">
            Sign in
          </Link>
        )}
      </div>
    </header>
  );
}

function Routes(props: { path: string; query: URLSearchParams }) {
  const { user, ready } = useSession();
  const { path } = props;
  const parts = path.split('/').filter(Boolean);
  useEffect(() => {
    document.title = `${parts[0] ? parts[0][0]!.toUpperCase() + parts[0].slice(1) : 'Markets'} · Trading Platform console`;
  }, [path]);
  if (parts.length === 0 || (parts[0] === 'markets' && parts.length === 1)) return <MarketsPage />;
  if (parts[0] === 'markets' && parts[1]) return <PairPage {...props} />;
  if (parts[0] === 'sign-in') return <SignInPage />;
  if (!ready)
    return (
      <p role="status" class="muted">
        Loading…
      </p>
    );
  if (parts[0] === 'account') return user ? <AccountPage {...props} /> : <SignInPage next={path} />;
  if (parts[0] === 'admin') {
    if (!user) return <SignInPage next={path} />;
    if (user.role !== 'admin') return <p role="alert">The admin pages are for admins only.</p>;
    return <AdminPage {...props} />;
  }
  return (
    <section class="card">
      <h1>Page not found</h1>
      <p>
        <Link href="/markets">Go to the markets</Link>
      </p>
    </section>
  );
}

function App() {
  const route = useRoute();
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggleTheme = () => {
    const next = theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem(THEME_KEY, next);
    setTheme(next);
  };
  return (
    <>
      <Header path={route.path} theme={theme} toggleTheme={toggleTheme} />
      <main id="main" tabIndex={-1}>
        <Routes path={route.path} query={route.query} />
      </main>
    </>
  );
}

document.documentElement.dataset.theme = initialTheme();
render(<App />, document.getElementById('app')!);
void resume().then(watchAccount);

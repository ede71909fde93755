// Paths under /console, routed in the browser; the server answers the shell for every one of them.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';
const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  const url = path.startsWith(BASE) ? path : `${BASE}${path}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

/** The path below /console, e.g. `/markets/BTCUSDT`, with the query string. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const read = () => ({
    path: location.pathname.slice(BASE.length) || '/',
    query: new URLSearchParams(location.search),
  });
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

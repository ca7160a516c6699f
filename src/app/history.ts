// The browser history the router reads: the current location as an external store, pushState for
// links, replaceState for the root machine's `navigate`, popstate for the back and forward
// buttons. react-router's <Router> renders from it (BrowserRouter would bring its own history,
// links and data-router code to the first load: 5 KB of gzipped JavaScript).
import type { Navigator, To } from 'react-router';

export type BrowserLocation = { pathname: string; search: string; hash: string; state: unknown; key: string };

type Listener = () => void;
const listeners = new Set<Listener>();

function read(): BrowserLocation {
  const { pathname, search, hash } = window.location;
  const state = window.history.state as { key?: string } | null;
  return { pathname, search, hash, state: null, key: state?.key ?? 'default' };
}

let current = read();

function changed(): void {
  current = read();
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', changed);

function href(to: To): string {
  return typeof to === 'string' ? to : `${to.pathname ?? ''}${to.search ?? ''}${to.hash ?? ''}`;
}

const entry = () => ({ key: Math.random().toString(36).slice(2, 10) });

export const browserHistory = {
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => { listeners.delete(listener); };
  },
  location: (): BrowserLocation => current,
  /** A new history entry: a link the user followed. */
  push(to: To): void {
    window.history.pushState(entry(), '', href(to));
    changed();
  },
  /** The same entry, another place: where the root machine sends the user. */
  replace(to: To): void {
    window.history.replaceState(entry(), '', href(to));
    changed();
  },
};

/** What react-router's <Router> calls navigation through. */
export const routerNavigator: Navigator = {
  createHref: href,
  go: (delta) => window.history.go(delta),
  push: (to) => browserHistory.push(to),
  replace: (to) => browserHistory.replace(to),
};

// The browser history the app renders from: the current location as an external store, pushState
// for links, replaceState for the root machine's `navigate`, popstate for the back and forward
// buttons. Every screen is one exact path of the route table, so the app needs no router library:
// the location goes down a context (useLocation), and src/app/routes.tsx maps a path to its screen.
import { createContext, useContext } from 'react';

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

const entry = () => ({ key: Math.random().toString(36).slice(2, 10) });

export const browserHistory = {
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
  location: (): BrowserLocation => current,
  /** A new history entry: a link the user followed. */
  push(to: string): void {
    window.history.pushState(entry(), '', to);
    changed();
  },
  /** The same entry, another place: where the root machine sends the user. */
  replace(to: string): void {
    window.history.replaceState(entry(), '', to);
    changed();
  },
};

/** The location the app renders (the browser's, or the one the build draws a screen at). */
export const LocationContext = createContext<BrowserLocation | null>(null);

export function useLocation(): BrowserLocation {
  const location = useContext(LocationContext);
  if (!location) throw new Error('useLocation outside LocationContext');
  return location;
}

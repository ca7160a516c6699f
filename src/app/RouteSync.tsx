// The one place where the URL and the root machine meet: every location change (link, back
// button, reload) becomes a ROUTE event, and the machine's `navigate` requests reach the router.
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { browserHistory } from './history.ts';
import type { Navigator } from './actor.ts';
import { useRootActor } from './context.ts';

export function RouteSync({ navigator }: { navigator: Navigator }) {
  const actor = useRootActor();
  const location = useLocation();
  useEffect(() => {
    navigator.current = (to) => browserHistory.replace(to);
    if (navigator.pending) {
      navigator.current(navigator.pending);
      navigator.pending = null;
    }
    return () => { navigator.current = null; };
  }, [navigator]);
  useEffect(() => {
    actor.send({ type: 'ROUTE', location: { path: location.pathname, search: location.search } });
  }, [actor, location.pathname, location.search]);
  return null;
}

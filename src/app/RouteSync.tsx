// The one place where the URL and the root machine meet: every location change (link, back
// button, reload) becomes a ROUTE event, and the machine's `navigate` requests reach the router.
// A request made while the machine answers a location change corrects that location (a guard's
// redirect, a flow refusing a step it cannot show): it replaces the entry, so Back never lands on
// it again. Any other request is a step forward (a code sent, a sign-in done): a new entry, so Back
// returns to the step before it and Forward comes back.
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { browserHistory } from './history.ts';
import type { Navigator } from './actor.ts';
import { useRootActor } from './context.ts';

/** True while the machine handles a location change: what it asks for then replaces that location. */
let answering = false;

export function RouteSync({ navigator }: { navigator: Navigator }) {
  const actor = useRootActor();
  const location = useLocation();
  useEffect(() => {
    navigator.current = (to) => {
      const { pathname, search } = browserHistory.location();
      // Already there (a path alone keeps the query it has: a step-up's redirect).
      if (to === pathname + search || to === pathname) return;
      if (answering) browserHistory.replace(to);
      else browserHistory.push(to);
    };
    if (navigator.pending) {
      navigator.current(navigator.pending);
      navigator.pending = null;
    }
    return () => { navigator.current = null; };
  }, [navigator]);
  useEffect(() => {
    answering = true;
    try {
      actor.send({ type: 'ROUTE', location: { path: location.pathname, search: location.search } });
    } finally {
      answering = false;
    }
  }, [actor, location.pathname, location.search]);
  return null;
}

// The one place where the URL and the root machine meet: every location change (link, back
// button, reload) becomes a ROUTE event, and the machine's `navigate` requests reach the router.
// A request that follows something the person did since the location last changed (a code sent, a
// sign-in done) is a step forward: a new entry, so Back returns to the step before it and Forward
// comes back. Any other request corrects the location it answers (a guard's redirect, a flow that
// refuses a step, resumes one after a reload, or starts on its first): it replaces the entry, so
// Back never lands on it again.
import { useEffect, useRef } from 'react';
import { browserHistory, useLocation } from './history.ts';
import type { Navigator } from './actor.ts';
import { useRootActor } from './context.ts';

/** Whether the person clicked, tapped or typed since the location last changed. */
let acted = false;
const act = () => {
  acted = true;
};
window.addEventListener('pointerdown', act, true);
window.addEventListener('keydown', act, true);

export function RouteSync({ navigator }: { navigator: Navigator }) {
  const actor = useRootActor();
  const location = useLocation();
  useEffect(() => {
    navigator.current = (to) => {
      const { pathname, search } = browserHistory.location();
      // Already there (a path alone keeps the query it has: a step-up's redirect).
      if (to === pathname + search || to === pathname) return;
      if (acted) browserHistory.push(to);
      else browserHistory.replace(to);
    };
    if (navigator.pending) {
      navigator.current(navigator.pending);
      navigator.pending = null;
    }
    return () => {
      navigator.current = null;
    };
  }, [navigator]);
  const mounted = useRef(false);
  useEffect(() => {
    // A location the machine has already moved on from (a request made before the router mounted,
    // applied just above) is not reported: the render of the new one reports that.
    const now = browserHistory.location();
    if (now.pathname !== location.pathname || now.search !== location.search) return;
    // Nor, on mounting, the location the machine started at: it may have settled on it already
    // (the page carried the session), and a flow would take it as a second visit.
    const first = !mounted.current;
    mounted.current = true;
    const known = actor.getSnapshot().context.location;
    if (first && known.path === location.pathname && known.search === location.search) return;
    acted = false;
    actor.send({ type: 'ROUTE', location: { path: location.pathname, search: location.search } });
  }, [actor, location.pathname, location.search]);
  return null;
}

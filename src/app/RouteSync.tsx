// The one place where the router and the root machine meet: every location change (link, back
// button, reload) becomes a ROUTE event, and the machine's `navigate` requests become router
// navigations. A request that follows something the person did since the location last changed (a
// code sent, a sign-in done) is a step forward: a new entry, so Back returns to the step before it
// and Forward comes back. Any other request corrects the location it answers (a guard's redirect, a
// flow that refuses a step, resumes one after a reload, or starts on its first): it replaces the
// entry, so Back never lands on it again.
import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import type { Navigator } from './actor.ts';
import { useRootActor } from '../shell/context.ts';

/** Whether the person clicked, tapped or typed since the location last changed. */
let acted = false;
const act = () => {
  acted = true;
};
window.addEventListener('pointerdown', act, true);
window.addEventListener('keydown', act, true);

/** The person acted where no listener could see it yet (a link of the screen the server drew). */
export const actedEarly = act;

export function RouteSync({ navigator }: { navigator: Navigator }) {
  const actor = useRootActor();
  const location = useLocation();
  // The router's navigate changes with the location; the machine's requests use the latest.
  const latest = useNavigate();
  const navigate = useRef(latest);
  navigate.current = latest;
  useEffect(() => {
    navigator.current = (to) => {
      const { pathname, search } = window.location;
      // Already there (a path alone keeps the query it has: a step-up's redirect).
      if (to === pathname + search || to === pathname) return;
      void navigate.current(to, { replace: !acted });
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
    const now = window.location;
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

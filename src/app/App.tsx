import { useSelector } from '@xstate/react';
import { BrowserRouter, useLocation } from 'react-router';
import { Pending } from '../components/Pending.tsx';
import type { Navigator } from './actor.ts';
import { RootActorContext, type RootActor } from '../shell/context.ts';
import { RouteSync } from './RouteSync.tsx';
import { ScreenFocus, SkipLink } from './ScreenFocus.tsx';
import { Screens } from './routes.tsx';

/** The app inside a router: what the browser shows, and what the build draws ahead of it for the
 * first visit of a public screen (src/prerender.tsx, in a StaticRouter), so the two cannot drift
 * apart. Screens render once the session is known; until then, a status. */
export function AppAt({ actor, navigator, settling }: { actor: RootActor; navigator: Navigator; settling: boolean }) {
  const { pathname } = useLocation();
  return (
    <RootActorContext.Provider value={actor}>
      <RouteSync navigator={navigator} />
      <SkipLink />
      <ScreenFocus location={pathname} />
      {settling ? <Pending /> : <Screens />}
    </RootActorContext.Provider>
  );
}

export function App({ actor, navigator }: { actor: RootActor; navigator: Navigator }) {
  const settling = useSelector(actor, isSettling);
  // Without transitions: a location change shows its screen (or the status while a lazy one
  // loads) at once, as the root machine's state does.
  return (
    <BrowserRouter useTransitions={false}>
      <AppAt actor={actor} navigator={navigator} settling={settling} />
    </BrowserRouter>
  );
}

/** Whether the session is still being found out (the config, then the user). */
export const isSettling = (s: ReturnType<RootActor['getSnapshot']>) => s.matches('booting') || s.matches('restoring');

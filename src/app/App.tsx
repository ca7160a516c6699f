import { useSelector } from '@xstate/react';
import { useSyncExternalStore } from 'react';
import { Pending } from '../components/Pending.tsx';
import type { Navigator, RootActor } from './actor.ts';
import { RootActorContext } from './context.ts';
import { browserHistory, LocationContext, type BrowserLocation } from './history.ts';
import { RouteSync } from './RouteSync.tsx';
import { ScreenFocus, SkipLink } from './ScreenFocus.tsx';
import { screenAt } from './routes.tsx';

/** The app at a location: what the browser shows, and what the build draws ahead of it for the first
 * visit of a public screen (src/prerender.tsx), so the two cannot drift apart. Screens render once
 * the session is known; until then, a status. */
export function AppAt({
  actor,
  navigator,
  location,
  settling,
}: {
  actor: RootActor;
  navigator: Navigator;
  location: BrowserLocation;
  settling: boolean;
}) {
  return (
    <RootActorContext.Provider value={actor}>
      <LocationContext.Provider value={location}>
        <RouteSync navigator={navigator} />
        <SkipLink />
        <ScreenFocus location={location.pathname} />
        {settling ? <Pending /> : screenAt(location.pathname)}
      </LocationContext.Provider>
    </RootActorContext.Provider>
  );
}

export function App({ actor, navigator }: { actor: RootActor; navigator: Navigator }) {
  const settling = useSelector(actor, isSettling);
  const location = useSyncExternalStore(browserHistory.subscribe, browserHistory.location);
  return <AppAt actor={actor} navigator={navigator} location={location} settling={settling} />;
}

/** Whether the session is still being found out (the config, then the user). */
export const isSettling = (s: ReturnType<RootActor['getSnapshot']>) => s.matches('booting') || s.matches('restoring');

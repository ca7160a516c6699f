import { useSelector } from '@xstate/react';
import { useSyncExternalStore } from 'react';
import { Router, useRoutes } from 'react-router';
import { Pending } from '../components/Pending.tsx';
import type { Navigator, RootActor } from './actor.ts';
import { RootActorContext } from './context.ts';
import { browserHistory, routerNavigator } from './history.ts';
import { RouteSync } from './RouteSync.tsx';
import { ScreenFocus, SkipLink } from './ScreenFocus.tsx';
import { routes } from './routes.tsx';

function Screens() {
  return useRoutes(routes);
}

/** Screens render once the session is known; until then, a status. */
export function App({ actor, navigator }: { actor: RootActor; navigator: Navigator }) {
  const settling = useSelector(actor, (s) => s.matches('booting') || s.matches('restoring'));
  const location = useSyncExternalStore(browserHistory.subscribe, browserHistory.location);
  return (
    <RootActorContext.Provider value={actor}>
      <Router location={location} navigator={routerNavigator}>
        <RouteSync navigator={navigator} />
        <SkipLink />
        <ScreenFocus location={location.pathname} />
        {settling ? <Pending /> : <Screens />}
      </Router>
    </RootActorContext.Provider>
  );
}

import { useSelector } from '@xstate/react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { Pending } from '../components/Pending.tsx';
import type { Navigator, RootActor } from './actor.ts';
import { RootActorContext } from './context.ts';
import { RouteSync } from './RouteSync.tsx';
import { routes } from './routes.tsx';

/** Screens render once the session is known; until then, a status. */
export function App({ actor, navigator }: { actor: RootActor; navigator: Navigator }) {
  const settling = useSelector(actor, (s) => s.matches('booting') || s.matches('restoring'));
  return (
    <RootActorContext.Provider value={actor}>
      <BrowserRouter>
        <RouteSync navigator={navigator} />
        {settling ? <Pending /> : (
          <Routes>
            {routes.map((route) => <Route key={route.path} path={route.path} element={route.element} />)}
          </Routes>
        )}
      </BrowserRouter>
    </RootActorContext.Provider>
  );
}

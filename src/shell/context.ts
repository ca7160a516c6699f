// The root actor, as the screens reach it: the app (src/app) creates and binds it, and provides it
// to the tree through this context.
import { createContext, useContext } from 'react';
import type { Actor } from 'xstate';
import type { rootMachine } from '../../machines/root.ts';

export type RootActor = Actor<typeof rootMachine>;

export const RootActorContext = createContext<RootActor | null>(null);

export function useRootActor(): RootActor {
  const actor = useContext(RootActorContext);
  if (!actor) throw new Error('useRootActor outside RootActorContext');
  return actor;
}

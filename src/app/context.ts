import { createContext, useContext } from 'react';
import type { RootActor } from './actor.ts';

export const RootActorContext = createContext<RootActor | null>(null);

export function useRootActor(): RootActor {
  const actor = useContext(RootActorContext);
  if (!actor) throw new Error('useRootActor outside RootActorContext');
  return actor;
}

// The frame of a flow's screen: the public layout with one card, showing the flow's child machine
// once the root has started it (and a status until then).
import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { AnyActorRef } from 'xstate';
import { useRootActor } from '../app/context.ts';
import { PublicLayout } from './PublicLayout.tsx';

/** The root's running child under one of these ids (the first that runs). */
export function useFlowChild<T extends AnyActorRef>(...ids: string[]): T | undefined {
  const root = useRootActor();
  return useSelector(root, (s) => ids.map((id) => (s.children as Record<string, AnyActorRef | undefined>)[id]).find(Boolean) as T | undefined);
}

export function FlowCard<T extends AnyActorRef>({ flow, children }: { flow: T | undefined; children: (flow: T) => ReactNode }) {
  return (
    <PublicLayout>
      <section className="mx-auto max-w-lg rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        {flow ? children(flow) : <p role="status">…</p>}
      </section>
    </PublicLayout>
  );
}

// The frame of a flow's screen: the public layout with one card, showing the flow's child machine
// once the root has started it (and a status until then).
import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { AnyActorRef } from 'xstate';
import { useRootActor, type RootActor } from '../shell/context.ts';
import { isPending } from '../shell/lazyFlow.ts';
import { Card } from './Card.tsx';
import { PublicLayout } from './PublicLayout.tsx';

type RootChildren = ReturnType<RootActor['getSnapshot']>['children'];

/**
 * The root's running child under one of these ids (the first that runs), typed by the root's setup,
 * once its machine's chunk is loaded (see src/shell/lazyFlow.ts); until then undefined.
 */
export function useFlowChild<K extends keyof RootChildren>(...ids: K[]): RootChildren[K] | undefined {
  const root = useRootActor();
  const child = useSelector(root, (s) => ids.map((id) => s.children[id]).find(Boolean));
  const ready = useSelector(child, (s) => s !== undefined && !isPending(s));
  return ready ? child : undefined;
}

export function FlowCard<T extends AnyActorRef>({
  flow,
  children,
}: {
  flow: T | undefined;
  children: (flow: T) => ReactNode;
}) {
  return (
    <PublicLayout>
      <Card className="mx-auto max-w-lg">{flow ? children(flow) : <p role="status">…</p>}</Card>
    </PublicLayout>
  );
}

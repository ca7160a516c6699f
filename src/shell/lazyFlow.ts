// A flow's machine that loads when the root first starts it. The root declares each flow with its
// type (machines/root/setup.ts); the app binds it to this actor logic, which imports the flow's
// module (its own chunk) on first use and from then on is that machine: same snapshots, events,
// children and output. Until the chunk is there the child's snapshot is pending (views show a
// status, `isPending`), and the events it gets wait and are replayed in order.
import type { ActorScope, AnyActorLogic, EventObject } from 'xstate';

const LOADED = 'lazy.loaded';
const FAILED = 'lazy.failed';
const STOP = 'xstate.stop';

type PendingSnapshot = {
  status: 'active';
  output: undefined;
  error: undefined;
  pending: true;
  input: unknown;
  queue: EventObject[];
  /** Shared with the import's callback: a child stopped before its chunk came is not woken. */
  stopped: { value: boolean };
};

type Snap = PendingSnapshot | { status: string; pending?: undefined };
type Scope = ActorScope<never, EventObject>;

/** Whether a flow child still waits for its machine's chunk. */
export function isPending(snapshot: unknown): boolean {
  return (snapshot as { pending?: unknown } | undefined)?.pending === true;
}

/**
 * Actor logic of type `T` that is `load()`'s logic once loaded. `preload()` starts the import early
 * (e.g. before the route that starts the flow); once it resolved, the flow starts synchronously.
 */
export function lazyFlow<T extends AnyActorLogic>(load: () => Promise<T>): { logic: T; preload: () => Promise<T> } {
  let loaded: T | null = null;
  let loading: Promise<T> | null = null;
  const preload = () => {
    loading ??= load().then(
      (logic) => (loaded = logic),
      (error: unknown) => {
        loading = null; // a later start tries again
        throw error;
      },
    );
    return loading;
  };
  const real = () => loaded as T;
  const logic = {
    getInitialSnapshot(scope: Scope, input: unknown): Snap {
      if (loaded) return loaded.getInitialSnapshot(scope, input);
      return {
        status: 'active',
        output: undefined,
        error: undefined,
        pending: true,
        input,
        queue: [],
        stopped: { value: false },
      };
    },
    start(snapshot: Snap, scope: Scope) {
      if (!isPending(snapshot)) {
        real().start?.(snapshot, scope);
        return;
      }
      const { stopped } = snapshot as PendingSnapshot;
      preload().then(
        () => {
          if (!stopped.value) scope.self.send({ type: LOADED } as never);
        },
        (error: unknown) => {
          if (!stopped.value) scope.self.send({ type: FAILED, error } as never);
        },
      );
    },
    transition(snapshot: Snap, event: EventObject, scope: Scope): Snap {
      if (!isPending(snapshot)) return real().transition(snapshot, event, scope);
      const pending = snapshot as PendingSnapshot;
      switch (event.type) {
        case LOADED: {
          let next = real().getInitialSnapshot(scope, pending.input);
          const started = next;
          // The machine's first children start as they would have on a direct start.
          scope.defer(() => real().start?.(started, scope));
          for (const queued of pending.queue) next = real().transition(next, queued, scope);
          return next;
        }
        case FAILED:
          return { ...pending, status: 'error', error: (event as { error?: unknown }).error } as unknown as Snap;
        case STOP:
          pending.stopped.value = true;
          return pending;
        default:
          return { ...pending, queue: [...pending.queue, event] };
      }
    },
    getPersistedSnapshot(snapshot: Snap, options?: unknown) {
      return isPending(snapshot) ? snapshot : real().getPersistedSnapshot(snapshot, options);
    },
  };
  return { logic: logic as unknown as T, preload };
}

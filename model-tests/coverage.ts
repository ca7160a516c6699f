// Walks a real machine's state graph with xstate/graph and reports which of its declared
// transitions were taken: those on events and the eventless (`always`) branches alike. The walk
// records every transition each macrostep takes (the event's, the raised events' and the eventless
// branches it settles through, the first snapshot's included), so a branch counts only when a walk
// really took it. createTestModel refuses machines that invoke actors or use delays, so the walk
// feeds the machine the events its actors would send (xstate.done.actor.* and xstate.error.actor.*)
// alongside the user's events.
import type { AnyActorScope, AnyStateMachine, EventObject } from 'xstate';
import { getAdjacencyMap, getStateNodes } from 'xstate/graph';

type Transition = {
  source: { id: string };
  eventType: string;
  target?: ReadonlyArray<{ id: string }> | undefined;
  guard?: unknown;
};

/** A guard's name: its type, a parameterised guard's type, or the name of an inline function. */
export function guardName(guard: unknown): string {
  if (!guard) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name && guard.name !== 'guard' ? guard.name : 'inline';
  return (guard as { type?: string }).type ?? 'inline';
}

export function describeTransition(t: Transition, index: number): string {
  const guard = guardName(t.guard);
  const target = t.target?.map((n) => n.id).join(',') ?? '(self)';
  return `${t.source.id} --${t.eventType === '' ? 'always' : t.eventType}${guard ? ` [${guard}]` : ''}#${index}--> ${target}`;
}

/** Every transition the machine declares: each event's, then each state's eventless branches. */
export function declaredTransitions(machine: AnyStateMachine): Transition[] {
  return getStateNodes(machine.root).flatMap((node) => [
    ...[...node.transitions.values()].flat(),
    ...(node.always ?? []),
  ]) as Transition[];
}

/** The machine as the walk drives it, adding to `taken` every transition each macrostep takes. */
function recording(machine: AnyStateMachine, taken: Set<Transition>): AnyStateMachine {
  const scopes = new WeakMap<AnyActorScope, AnyActorScope>();
  const watched = (scope: AnyActorScope): AnyActorScope => {
    let seen = scopes.get(scope);
    if (!seen) {
      const system = Object.create(scope.system) as AnyActorScope['system'] & {
        _sendInspectionEvent: (event: unknown) => void;
      };
      const forward = (scope.system as unknown as { _sendInspectionEvent: (event: unknown) => void })
        ._sendInspectionEvent;
      system._sendInspectionEvent = (event: unknown) => {
        const step = event as { type: string; _transitions?: Transition[] };
        if (step.type === '@xstate.microstep') for (const t of step._transitions ?? []) taken.add(t);
        forward(event);
      };
      seen = { ...scope, system };
      scopes.set(scope, seen);
    }
    return seen;
  };
  const logic = Object.create(machine) as AnyStateMachine;
  logic.transition = (snapshot, event, scope) => machine.transition(snapshot, event, watched(scope));
  logic.getInitialSnapshot = (scope, input) => machine.getInitialSnapshot(watched(scope), input);
  return logic;
}

export function walk<TEvent extends EventObject>(
  machine: AnyStateMachine,
  options: {
    input?: unknown;
    events: (snapshot: ReturnType<AnyStateMachine['getInitialSnapshot']>) => readonly TEvent[];
    limit?: number;
    /** What makes two snapshots the same state for the walk (default: value and whole context). */
    serializeState?: (snapshot: { value: unknown; context: unknown }) => string;
  },
) {
  const taken = new Set<Transition>();
  const adjacency = getAdjacencyMap(recording(machine, taken), {
    input: options.input,
    events: options.events as never,
    limit: options.limit ?? 500_000,
    ...(options.serializeState ? { serializeState: options.serializeState } : {}),
  } as never) as Record<string, { state: never; transitions: Record<string, { event: EventObject; state: unknown }> }>;
  const declared = declaredTransitions(machine);
  const missing = declared.filter((t) => !taken.has(t)).map((t) => describeTransition(t, declared.indexOf(t)));
  return {
    states: Object.keys(adjacency).length,
    declared: declared.length,
    taken: declared.length - missing.length,
    missing,
    adjacency,
  };
}

type Snapshot = ReturnType<AnyStateMachine['getInitialSnapshot']>;
/** The events a walk sends at a snapshot. */
export type Events = (snapshot: Snapshot) => readonly EventObject[];
/** What makes two snapshots the same state for a walk. */
export type Serialize = (snapshot: { value: unknown; context: unknown }) => string;
/** One named start of a machine: its input, and the events (or states told apart) where they differ. */
export type Start = { name: string; input?: unknown; events?: Events; serializeState?: Serialize };
/** How a model test walks a machine: the machine as walked, its named starts (the first the main
 * one), the events sent at each snapshot with their payloads, and what tells two states apart. The
 * testers' paths (scripts/testerPaths.ts) walk the same. */
export type Model = { machine: AnyStateMachine; starts: readonly Start[]; events: Events; serializeState?: Serialize };

/** The start of `model` named `name`. */
export function startOf(model: Model, name: string): Start {
  const start = model.starts.find((s) => s.name === name);
  if (!start) throw new Error(`no start named ${name}`);
  return start;
}

/** The walk of `model` from one of its starts. */
export function walkFrom(model: Model, start: Start = model.starts[0]!) {
  const serializeState = start.serializeState ?? model.serializeState;
  return walk(model.machine, {
    input: start.input,
    events: start.events ?? model.events,
    ...(serializeState ? { serializeState } : {}),
  });
}

/** The walks of `model` from all its starts: a transition is missing only when every walk missed it. */
export function walkAll(model: Model) {
  const runs = model.starts.map((start) => walkFrom(model, start));
  const missing = runs[0]!.missing.filter((t) => runs.every((r) => r.missing.includes(t)));
  return {
    runs,
    declared: runs[0]!.declared,
    taken: runs[0]!.declared - missing.length,
    missing,
    states: runs.reduce((n, r) => n + r.states, 0),
  };
}

/** Every step of the walk: a reachable snapshot, an event, and the snapshot it led to. */
export function stepsOf(
  result: ReturnType<typeof walk>,
): Array<{ from: AnySnapshot; event: EventObject; to: AnySnapshot }> {
  return Object.values(result.adjacency).flatMap(({ state, transitions }) =>
    Object.values(transitions).map(({ event, state: to }) => ({
      from: state as AnySnapshot,
      event,
      to: to as AnySnapshot,
    })),
  );
}

type AnySnapshot = { value: unknown; context: Record<string, unknown>; status: string };

export function report(name: string, result: { taken: number; declared: number; states: number }): string {
  const percent = result.declared === 0 ? 100 : Math.round((result.taken / result.declared) * 1000) / 10;
  return `${name}: ${result.taken}/${result.declared} transitions (${percent}%) over ${result.states} states`;
}

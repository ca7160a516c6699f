// Walks a real machine's state graph with xstate/graph and reports which of its declared
// transitions were taken. createTestModel refuses machines that invoke actors or use delays, so
// the walk feeds the machine the events its actors would send (xstate.done.actor.* and
// xstate.error.actor.*) alongside the user's events.
import type { AnyStateMachine, EventObject } from 'xstate';
import { getAdjacencyMap, getStateNodes } from 'xstate/graph';

type Transition = { source: { id: string }; eventType: string; target?: ReadonlyArray<{ id: string }> | undefined; guard?: unknown };

export function describeTransition(t: Transition, index: number): string {
  const guard = typeof t.guard === 'string' ? t.guard : t.guard ? (t.guard as { type?: string }).type ?? 'inline' : '';
  const target = t.target?.map((n) => n.id).join(',') ?? '(self)';
  return `${t.source.id} --${t.eventType}${guard ? ` [${guard}]` : ''}#${index}--> ${target}`;
}

export function declaredTransitions(machine: AnyStateMachine): Transition[] {
  return getStateNodes(machine.root).flatMap((node) => [...node.transitions.values()].flat()) as Transition[];
}

export function walk<TEvent extends EventObject>(machine: AnyStateMachine, options: {
  input?: unknown;
  events: (snapshot: ReturnType<AnyStateMachine['getInitialSnapshot']>) => readonly TEvent[];
  limit?: number;
  /** What makes two snapshots the same state for the walk (default: value and whole context). */
  serializeState?: (snapshot: { value: unknown; context: unknown }) => string;
}) {
  const adjacency = getAdjacencyMap(machine, {
    input: options.input,
    events: options.events as never,
    limit: options.limit ?? 500_000,
    ...(options.serializeState ? { serializeState: options.serializeState } : {}),
  } as never) as Record<string, { state: never; transitions: Record<string, { event: EventObject; state: unknown }> }>;
  const taken = new Set<Transition>();
  for (const { state, transitions } of Object.values(adjacency)) {
    for (const { event } of Object.values(transitions)) {
      for (const t of machine.getTransitionData(state, event) as Transition[]) taken.add(t);
    }
  }
  const declared = declaredTransitions(machine);
  const missing = declared.filter((t) => !taken.has(t)).map((t) => describeTransition(t, declared.indexOf(t)));
  return { states: Object.keys(adjacency).length, declared: declared.length, taken: declared.length - missing.length, missing, adjacency };
}

/** Every step of the walk: a reachable snapshot, an event, and the snapshot it led to. */
export function stepsOf(result: ReturnType<typeof walk>): Array<{ from: AnySnapshot; event: EventObject; to: AnySnapshot }> {
  return Object.values(result.adjacency).flatMap(({ state, transitions }) =>
    Object.values(transitions).map(({ event, state: to }) => ({ from: state as AnySnapshot, event, to: to as AnySnapshot })));
}

type AnySnapshot = { value: unknown; context: Record<string, unknown>; status: string };

export function report(name: string, result: { taken: number; declared: number; states: number }): string {
  const percent = result.declared === 0 ? 100 : Math.round((result.taken / result.declared) * 1000) / 10;
  return `${name}: ${result.taken}/${result.declared} transitions (${percent}%) over ${result.states} states`;
}

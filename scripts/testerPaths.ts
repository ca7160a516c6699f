// Paths for testers: for every machine the charts draw, the shortest way from its start to each
// state it can reach, found by `getShortestPaths` from xstate/graph. The walk is the model test's
// (model-tests/models.ts): the same machine, the same named starts, the same events with their
// payloads at each state, and the same states told apart.
// Used by `npm run paths` and by the staleness test (model-tests/paths.test.ts).
import type { EventObject } from 'xstate';
import { getShortestPaths, getStateNodes } from 'xstate/graph';
import { declaredTransitions, type Model, type Start } from '../model-tests/coverage.ts';
import { MODELS } from '../model-tests/models.ts';
import { MACHINES } from './statecharts.ts';

type Node = (typeof MACHINES)[string]['root'];
type Snapshot = { value: unknown; status: string; tags: Set<string>; _nodes: Node[] };
type Step = { state: Snapshot; event: EventObject };
type Found = { state: Snapshot; steps: Step[]; name: string };

/** The most states the walk expands per start, in the order it meets them (breadth first, so the
 * nearest come first); the states beyond are not walked from. The root's model test walks tens of
 * thousands: this keeps the paths quick to make and their files short. */
export const EXPANDED_LIMIT = 1_000;

const valueOf = (value: unknown): string => {
  if (typeof value === 'string') return value;
  return Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => (typeof v === 'string' ? `${k}.${v}` : `${k}.{${valueOf(v)}}`))
    .join(', ');
};

function describeState(snapshot: Snapshot): string {
  const tags = [...snapshot.tags].sort();
  return `\`${valueOf(snapshot.value)}\`${tags.length ? ` (tags: ${tags.join(', ')})` : ''}${snapshot.status === 'done' ? ' (final)' : ''}`;
}

/** A field of an event: an API failure as its status, its code and what else its body carries. */
function describeField(key: string, value: unknown): string {
  if (value instanceof Error) return `${key}: ${value.name} "${value.message}"`;
  const failure = value as { kind?: string; status?: number; code?: string; body?: Record<string, unknown> };
  if (failure && typeof failure === 'object' && failure.kind === 'api_failure') {
    const { code: _code, message: _message, ...more } = failure.body ?? {};
    return `${key}: ${failure.status} ${failure.code}${Object.keys(more).length ? ` ${JSON.stringify(more)}` : ''}`;
  }
  return `${key}: ${JSON.stringify(value)}`;
}

export function describeEvent(event: EventObject): string {
  const { type, ...payload } = event as EventObject & Record<string, unknown>;
  const fields = Object.entries(payload)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => describeField(k, v));
  return `\`${type}\`${fields.length ? ` { ${fields.join(', ')} }` : ''}`;
}

/** The shortest path to each state value reached from one start, and whether the bound cut the walk. */
function walkFrom(model: Model, start: Start): { found: Found[]; bounded: boolean } {
  const events = start.events ?? model.events;
  const serializeState = start.serializeState ?? model.serializeState;
  let expanded = 0;
  let bounded = false;
  const paths = getShortestPaths(model.machine, {
    input: start.input,
    events: (snapshot: Snapshot) => {
      if (snapshot.status !== 'active') return [];
      if (expanded >= EXPANDED_LIMIT) {
        bounded = true;
        return [];
      }
      expanded += 1;
      return events(snapshot as never);
    },
    // An answer no running actor waits for leaves the machine in error with the same value and context:
    // the status keeps such a snapshot apart, so that it never stands for the state it came from.
    serializeState: (snapshot: Snapshot & { context: unknown }) =>
      `${snapshot.status} ${serializeState ? serializeState(snapshot) : JSON.stringify([snapshot.value, snapshot.context])}`,
    limit: 10_000_000,
  } as never) as unknown as Array<{ state: Snapshot; steps: Step[] }>;
  // The walk tells snapshots apart by value and the context its guards read; a tester needs each
  // value once, by its shortest way (the first met of equal length: the walk's order is fixed).
  const byValue = new Map<string, Found>();
  for (const p of paths) {
    if (p.state.status === 'error') continue;
    const name = valueOf(p.state.value);
    const steps = p.steps.filter((step) => step.event.type !== 'xstate.init');
    const known = byValue.get(name);
    if (!known || steps.length < known.steps.length) byValue.set(name, { state: p.state, steps, name });
  }
  const found = [...byValue.values()].sort((a, b) => a.steps.length - b.steps.length || a.name.localeCompare(b.name));
  return { found, bounded };
}

/** A state node that only chooses among eventless branches: no snapshot rests in it. */
const isDecision = (node: Node) =>
  (node.always?.length ?? 0) > 0 && node.transitions.size === 0 && Object.keys(node.states).length === 0;

export type MachinePaths = {
  key: string;
  starts: number;
  reached: number;
  notReached: string[];
  passedThrough: string[];
  stateNodes: number;
  declared: number;
  bounded: boolean;
  document: string;
};

/** The shortest paths of one machine, as Markdown: per start, one for each state value that no
 * start before it reaches. */
export function machinePaths(key: string, model: Model): MachinePaths {
  const machine = MACHINES[key]!;
  const listed = new Set<string>();
  const entered = new Set<string>();
  const sections: string[] = [];
  let bounded = false;
  let number = 0;
  for (const [i, start] of model.starts.entries()) {
    const walk = walkFrom(model, start);
    bounded ||= walk.bounded;
    for (const p of walk.found) for (const node of p.state._nodes) entered.add(node.id);
    const first = walk.found.find((p) => p.steps.length === 0)!;
    const fresh = walk.found.filter((p) => !listed.has(p.name));
    for (const p of fresh) listed.add(p.name);
    sections.push(`## Start ${i + 1}: ${start.name}`, '');
    sections.push(
      start.input === undefined ? 'Started without input.' : `Started with input \`${JSON.stringify(start.input)}\`.`,
      '',
    );
    if (start.events) sections.push('This start sends its own events (see the model).', '');
    sections.push(
      `${walk.found.length} states reached${walk.bounded ? ` (walk bounded: at most ${EXPANDED_LIMIT} states walked from; the states beyond are not listed)` : ''}${i > 0 ? `, ${fresh.length} of them not reached from the starts above` : ''}.`,
      '',
    );
    for (const p of fresh) {
      number += 1;
      sections.push(`### ${number}. ${describeState(p.state)}`, '');
      if (p.steps.length === 0) sections.push('The start.', '');
      else {
        sections.push(`From the start, ${describeState(first.state)}:`, '');
        for (const [n, step] of p.steps.entries())
          sections.push(`${n + 1}. send ${describeEvent(step.event)}: now at ${describeState(step.state)}`);
        sections.push('');
      }
    }
  }
  const nodes = getStateNodes(machine.root);
  const unentered = nodes.filter((n: Node) => !entered.has(n.id));
  const passedThrough = unentered
    .filter(isDecision)
    .map((n: Node) => n.id)
    .sort();
  const notReached = unentered
    .filter((n: Node) => !isDecision(n))
    .map((n: Node) => n.id)
    .sort();

  const lines = [
    `# ${key}: paths for testers`,
    '',
    `Generated from \`machines/${key}.ts\` and its model (\`model-tests/models.ts\`) by \`npm run paths\`; do not edit by hand. See [the index](README.md) for how to read it.`,
    '',
    `${listed.size} states reached from ${model.starts.length} ${model.starts.length === 1 ? 'start' : 'starts'}${bounded ? ' (a walk bounded)' : ''}.`,
    '',
    ...sections,
    '## State nodes not entered',
    '',
    notReached.length === 0
      ? 'None.'
      : [
          'No walk above rests in these: a bound cut it short, or no start leads there.',
          '',
          ...notReached.map((id) => `- \`${id}\``),
        ].join('\n'),
    '',
    '## Decision states',
    '',
  ];
  if (passedThrough.length === 0) lines.push('None.');
  else
    lines.push(
      'These only choose among eventless branches: a flow passes through them without resting, so no state above is one of them.',
      'The model test takes every one of their branches.',
      '',
      ...passedThrough.map((id) => `- \`${id}\``),
    );
  return {
    key,
    starts: model.starts.length,
    reached: listed.size,
    notReached,
    passedThrough,
    stateNodes: nodes.length,
    declared: declaredTransitions(machine).length,
    bounded,
    document: `${lines.join('\n')}\n`,
  };
}

export function allPaths(): MachinePaths[] {
  return Object.keys(MACHINES)
    .sort()
    .map((key) => {
      const model = MODELS[key];
      if (!model) throw new Error(`machine ${key} has no model in model-tests/models.ts`);
      return machinePaths(key, model);
    });
}

export function indexDocument(all: MachinePaths[]): string {
  return [
    '# Paths for testers',
    '',
    'Generated by `npm run paths` (`scripts/paths.ts`); do not edit by hand. A test (`model-tests/paths.test.ts`) fails when these files are stale.',
    '',
    '## How to read them',
    '',
    'Each file walks one flow machine (the same machines as `docs/statecharts/`) with `getShortestPaths` from `xstate/graph`,',
    'and gives, for each state reached, the shortest list of events that leads there: at each step, the state the flow is in (its value,',
    'with its tags where it has some) and the event to send (its type, and the fields it carries; an API failure as its status, its',
    'code and what else its answer carries). A state is its value: two visits that differ only in data count once.',
    '',
    "The walk is the machine's model test's (`model-tests/models.ts`, one model per machine): the same named starts, the same",
    'events with the same payloads (typed values, the answers of the invoked actors, API calls and nested flows, as',
    '`xstate.done.actor.<id>` with their output or `xstate.error.actor.<id>` with their failure), and states told apart as the',
    'model test tells them (by value and the context its guards read; here also by whether an answer nobody waited for broke the',
    'flow, a dead end no path is given to). A machine with several starts (a page reloaded on a later step, another kind of account,',
    'an input missing) has a section per start; a state is listed under the first start that reaches it. The times a flow checks',
    'against the clock (when a code or a kept reset expires) are fixed far ahead, so that nothing expires and the files do not',
    `change from one run to the next. The walk expands at most ${EXPANDED_LIMIT} states per start, the`,
    'nearest first, so that the root, whose model test walks tens of thousands of states, stays quick to walk and its file short; a',
    'file and the table below say so when the bound cut a walk short.',
    '',
    '## What the model tests cover',
    '',
    'The model tests in `model-tests/` walk the same models to the end and require that every declared transition, eventless',
    'branches included, is taken (`model-tests/coverage.ts`). The table gives, per machine, its starts, the state values these paths',
    'reach, its state nodes these paths never enter, its decision states, its state nodes in all, and the transitions it declares,',
    'every one of which its model test takes. A decision state only chooses among eventless branches (where a flow starts, which',
    'screen of an area to show after a step-up): a flow passes through it without resting, so no path ends in one, and each file',
    'lists its own apart from the state nodes not entered.',
    '',
    '## Machines',
    '',
    '| Machine | Starts | States reached | State nodes not entered | Decision states (passed through) | State nodes | Declared transitions (all taken by the model test) | Bounded |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...all.map(
      (p) =>
        `| [${p.key}](${p.key}.md) | ${p.starts} | ${p.reached} | ${p.notReached.length} | ${p.passedThrough.length} | ${p.stateNodes} | ${p.declared} | ${p.bounded ? 'yes' : 'no'} |`,
    ),
    '',
  ].join('\n');
}

// Paths for testers: for every machine the charts draw, the shortest way from its start to each
// state it can reach, found by `getShortestPaths` from xstate/graph. The walk sends, at each state,
// the events its active state nodes accept, with no payload beyond the type (an invoked actor's
// answer as the model tests send it: `done(id)` with no output, `fail(id, 500, 'internal_error')`).
// A state whose way in needs a payload the generic walk cannot guess is listed as not reached.
// Used by `npm run paths` and by the staleness test (model-tests/paths.test.ts).
import { createMachine, type AnyStateMachine, type EventObject } from 'xstate';
import { getShortestPaths, getStateNodes } from 'xstate/graph';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { FLOW_MACHINES } from '../machines/root/flows.ts';
import { declaredTransitions } from '../model-tests/coverage.ts';
import { done, fail } from '../model-tests/events.ts';
import { MACHINES } from './statecharts.ts';
import { signedInUser } from '../model-tests/starts.ts';

type Node = AnyStateMachine['root'];
type Snapshot = { value: unknown; status: string; tags: Set<string>; _nodes: Node[]; context: unknown };

/** The most snapshots the walk expands per machine; the states beyond are not walked from. */
export const EXPANDED_LIMIT = 2_000;

/** A fixed instant far ahead, so that a code sent "now" has neither expired nor changes the output. */
const now = Date.UTC(2100, 0, 1);
const user = signedInUser;

/** The inputs the model tests start each machine with (the first start where they walk several). */
export const STARTS: Record<string, unknown> = {
  root: {
    storedAccount: { id: 'u1', firstname: 'Emma', mfa_forced: false, mfa_customer: false, mfa_enrolled: false },
    storedTarget: null,
    location: { path: '/user/dashboard', search: '' },
  },
  login: { mode: 'email' },
  mfaCode: {
    methods: [
      { id: 1, method: 'email', target: 'm***@example.be', primary: true },
      { id: 2, method: 'totp', primary: false },
    ],
    loginPayload: 'login',
    entry: 'code',
  },
  totpRecovery: { keysLeft: 3 },
  forcedMfa: { forced: true, customer: false },
  editPassword: { policy: DEFAULT_PASSWORD_POLICY },
  newPassword: { payload: 'ticket', policy: DEFAULT_PASSWORD_POLICY },
  codeEntry: {
    ticket: 'p',
    length: 8,
    sent: { target: 'm***@example.be', expiresAt: now + 900_000, resendAt: now + 30_000 },
    endsOn: ['onboarding_expired'],
  },
  forgotPassword: { mode: 'email', policy: DEFAULT_PASSWORD_POLICY, entry: 'email' },
  captcha: { enabled: true },
  onboarding: { entry: 'onboarding', policy: DEFAULT_PASSWORD_POLICY, language: 'en' },
  consent: { uid: 'abc' },
  partner: {
    step: 'landing',
    search: '?client_id=deals-partner',
    redirectTargets: ['https://my.tessera.example/auth/callback'],
  },
  profile: { step: 'overview', user, today: '2026-11-24' },
  undoChange: { token: 't'.repeat(43) },
  fuzzion: { payload: 'offer', result: null },
  microsoftStart: { tenants: [{ id: 'tenant-a', name: 'Contoso' }], device: 'device-1', redirect: null },
  microsoftMfa: { payload: 'payload-1' },
};

/** The machine as walked: the root's flows are empty machines (the walk answers for them, as in
 * the root's model test), and a transition that throws on a missing payload is not taken. */
function walked(key: string, machine: AnyStateMachine): AnyStateMachine {
  const base =
    key === 'root'
      ? machine.provide({
          actors: Object.fromEntries(
            Object.keys(FLOW_MACHINES).map((name) => [name, createMachine({ id: name })]),
          ) as never,
        })
      : machine;
  const logic = Object.create(base) as AnyStateMachine;
  logic.transition = (snapshot, event, scope) => {
    try {
      return base.transition(snapshot, event, scope);
    } catch {
      return snapshot;
    }
  };
  return logic;
}

/** The events the active state nodes accept, each with the least payload: an invoked actor's
 * answer as done (no output) and as a failure, any other event as its type alone. */
export function eventsAt(snapshot: Snapshot): EventObject[] {
  const types = new Set<string>();
  for (const node of snapshot._nodes) for (const type of node.ownEvents) if (type !== '*') types.add(type);
  return [...types].sort().map((type) => {
    const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
    if (!actor) return { type };
    return actor[1] === 'done' ? done(actor[2]!) : fail(actor[2]!, 500, 'internal_error');
  });
}

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

function describeEvent(event: EventObject): string {
  const { type, ...payload } = event as EventObject & Record<string, unknown>;
  const fields = Object.entries(payload)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      const error = v as { status?: number; body?: { code?: string } };
      return k === 'error' && error && typeof error === 'object' && 'status' in error
        ? `error: ${error.status} ${error.body?.code ?? ''}`.trim()
        : `${k}: ${JSON.stringify(v)}`;
    });
  return `\`${type}\`${fields.length ? ` { ${fields.join(', ')} }` : ''}`;
}

export type MachinePaths = {
  key: string;
  reached: number;
  notReached: string[];
  stateNodes: number;
  declared: number;
  bounded: boolean;
  document: string;
};

/** The shortest paths of one machine, as Markdown: one per state value reached. */
export function machinePaths(key: string, machine: AnyStateMachine): MachinePaths {
  let expanded = 0;
  let bounded = false;
  const paths = getShortestPaths(walked(key, machine), {
    input: STARTS[key],
    events: (snapshot: unknown) => {
      const s = snapshot as Snapshot;
      if (s.status !== 'active') return [];
      if (expanded >= EXPANDED_LIMIT) {
        bounded = true;
        return [];
      }
      expanded += 1;
      return eventsAt(s);
    },
    limit: 1_000_000,
  } as never) as unknown as Array<{ state: Snapshot; steps: Array<{ state: Snapshot; event: EventObject }> }>;
  // The walk tells snapshots apart by value and context; a tester needs each value once, by its shortest way.
  const byValue = new Map<
    string,
    { state: Snapshot; steps: Array<{ state: Snapshot; event: EventObject }>; name: string }
  >();
  for (const p of paths) {
    if (p.state.status === 'error') continue;
    const name = valueOf(p.state.value);
    const steps = p.steps.filter((step) => step.event.type !== 'xstate.init');
    const known = byValue.get(name);
    if (!known || steps.length < known.steps.length) byValue.set(name, { state: p.state, steps, name });
  }
  const reachedPaths = [...byValue.values()].sort(
    (a, b) => a.steps.length - b.steps.length || a.name.localeCompare(b.name),
  );
  const start = reachedPaths.find((p) => p.steps.length === 0)!;
  const seen = new Set<string>();
  for (const p of reachedPaths) for (const node of p.state._nodes) seen.add(node.id);
  const notReached = getStateNodes(machine.root)
    .map((n: Node) => n.id)
    .filter((id) => !seen.has(id))
    .sort();

  const lines = [
    `# ${key}: paths for testers`,
    '',
    `Generated from \`machines/${key}.ts\` by \`npm run paths\`; do not edit by hand. See [the index](README.md) for how to read it.`,
    '',
  ];
  if (STARTS[key] !== undefined) lines.push(`Started with input \`${JSON.stringify(STARTS[key])}\`.`, '');
  lines.push(
    `${reachedPaths.length} states reached${bounded ? ` (walk bounded: at most ${EXPANDED_LIMIT} states walked from; the states beyond are not listed)` : ''}.`,
    '',
  );
  for (const [i, p] of reachedPaths.entries()) {
    lines.push(`## ${i + 1}. ${describeState(p.state)}`, '');
    if (p.steps.length === 0) lines.push('The start.', '');
    else {
      lines.push(`From the start, ${describeState(start.state)}:`, '');
      for (const [n, step] of p.steps.entries())
        lines.push(`${n + 1}. send ${describeEvent(step.event)}: now at ${describeState(step.state)}`);
      lines.push('');
    }
  }
  lines.push('## Not reached by the generic walk (see the model test)', '');
  if (notReached.length === 0) lines.push('None.');
  else {
    const nodes = new Map(getStateNodes(machine.root).map((n: Node) => [n.id, n]));
    for (const id of notReached)
      lines.push(
        `- \`${id}\`${(nodes.get(id)?.always?.length ?? 0) > 0 ? ' (has eventless branches: a walk may pass through it without resting)' : ''}`,
      );
  }
  return {
    key,
    reached: reachedPaths.length,
    notReached,
    stateNodes: getStateNodes(machine.root).length,
    declared: declaredTransitions(machine).length,
    bounded,
    document: `${lines.join('\n')}\n`,
  };
}

export function allPaths(): MachinePaths[] {
  return Object.keys(MACHINES)
    .sort()
    .map((key) => machinePaths(key, MACHINES[key]!));
}

export function indexDocument(all: MachinePaths[]): string {
  return [
    '# Paths for testers',
    '',
    'Generated by `npm run paths` (`scripts/paths.ts`); do not edit by hand. A test (`model-tests/paths.test.ts`) fails when these files are stale.',
    '',
    '## How to read them',
    '',
    'Each file walks one flow machine (the same machines as `docs/statecharts/`) from its start with `getShortestPaths` from `xstate/graph`,',
    'and gives, for each state reached, the shortest list of events that leads there: at each step, the state the flow is in (its value,',
    'with its tags where it has some) and the event to send (its type, and the fields it carries). A state is its value: two visits that differ only in data count once.',
    '',
    'The walk sends, at each state, every event its active states accept, with no payload beyond the type. An invoked actor (an API call, a',
    'nested flow) answers as `xstate.done.actor.<id>` with no output or as `xstate.error.actor.<id>` with a 500 `internal_error`. So a',
    "transition whose guard reads a payload (a typed value, an answer's contents, an error's code) is not taken here: the states behind",
    'such guards are listed at the end of each file under "Not reached by the generic walk (see the model test)". Machines that need input',
    'start with the same input as their model test (shown at the top of the file). The walk stops expanding after',
    `${EXPANDED_LIMIT} states per machine (value and context apart), so that the root, whose model test walks tens of thousands of states,`,
    `stays small; a file and the table below say so when the bound cut a walk short${all.some((p) => p.bounded) ? '' : ' (with these payload-less events, none is cut short today)'}.`,
    '',
    '## What the model tests cover',
    '',
    'The model tests in `model-tests/` walk each machine with `xstate/graph` and scripted answers (real payloads, several starts) and',
    'require that every declared transition, eventless branches included, is taken (`model-tests/coverage.ts`). They reach what these',
    "generic paths cannot: use a model test's events when a state here is listed as not reached. The table gives, per machine, the",
    'state values these paths reach, its state nodes these paths never enter, its state nodes in all, and the transitions it declares,',
    'every one of which its model test takes.',
    '',
    '## Machines',
    '',
    '| Machine | States reached | State nodes not entered | State nodes | Declared transitions (all taken by the model test) | Bounded |',
    '| --- | --- | --- | --- | --- | --- |',
    ...all.map(
      (p) =>
        `| [${p.key}](${p.key}.md) | ${p.reached} | ${p.notReached.length} | ${p.stateNodes} | ${p.declared} | ${p.bounded ? 'yes' : 'no'} |`,
    ),
    '',
  ].join('\n');
}

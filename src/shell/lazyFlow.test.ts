import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, setup, type AnyActorRef } from 'xstate';
import { isPending, lazyFlow } from './lazyFlow.ts';

const flowMachine = setup({
  types: {
    context: {} as { name: string; seen: string[] },
    input: {} as { name: string },
    events: {} as { type: 'NEXT' } | { type: 'FINISH' },
  },
  actors: { greet: fromPromise(async () => 'hello') },
}).createMachine({
  context: ({ input }) => ({ name: input.name, seen: [] }),
  initial: 'greeting',
  states: {
    greeting: {
      invoke: {
        src: 'greet',
        onDone: { target: 'ready', actions: ({ context, event }) => context.seen.push(event.output) },
      },
    },
    ready: { on: { NEXT: { actions: ({ context }) => context.seen.push('next') }, FINISH: 'done' } },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ name: context.name, seen: context.seen }),
});

function parentOf(flow: typeof flowMachine) {
  return setup({ actors: { flow } }).createMachine({
    initial: 'running',
    context: { output: null as unknown },
    states: {
      running: {
        invoke: {
          id: 'flow',
          src: 'flow',
          input: { name: 'nora' },
          onDone: {
            target: 'finished',
            actions: ({ context, event }) => {
              context.output = event.output;
            },
          },
        },
      },
      finished: {},
    },
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('lazyFlow', () => {
  it('loads the machine on first start, keeps the events sent meanwhile, and gives its output to the parent', async () => {
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { logic } = lazyFlow(async () => {
      loads += 1;
      await gate;
      return flowMachine;
    });
    const parent = createActor(parentOf(logic)).start();
    const child = parent.getSnapshot().children.flow as AnyActorRef;
    expect(isPending(child.getSnapshot())).toBe(true);
    child.send({ type: 'NEXT' });
    release();
    await settle();
    expect(isPending(child.getSnapshot())).toBe(false);
    expect(child.getSnapshot().matches('ready')).toBe(true);
    child.send({ type: 'FINISH' });
    expect(parent.getSnapshot().value).toBe('finished');
    // The NEXT sent while loading is taken in the state the machine was in then (greeting: ignored).
    expect(parent.getSnapshot().context.output).toEqual({ name: 'nora', seen: ['hello'] });
    expect(loads).toBe(1);
  });

  it('is the machine itself once loaded', async () => {
    const { logic, preload } = lazyFlow(async () => flowMachine);
    await preload();
    const parent = createActor(parentOf(logic)).start();
    const child = parent.getSnapshot().children.flow as AnyActorRef;
    expect(isPending(child.getSnapshot())).toBe(false);
    await settle();
    child.send({ type: 'NEXT' });
    child.send({ type: 'FINISH' });
    expect(parent.getSnapshot().context.output).toEqual({ name: 'nora', seen: ['hello', 'next'] });
  });

  it("reports a chunk that does not load as the child's error, and tries again next time", async () => {
    let attempts = 0;
    const { logic } = lazyFlow(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('offline');
      return flowMachine;
    });
    const failing = createMachine({
      initial: 'running',
      states: { running: { invoke: { src: logic, input: { name: 'x' }, onError: 'failed' } }, failed: {} },
    });
    const actor = createActor(failing).start();
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    const again = createActor(parentOf(logic)).start();
    await settle();
    expect(isPending((again.getSnapshot().children.flow as AnyActorRef).getSnapshot())).toBe(false);
    expect(attempts).toBe(2);
  });
});

// The CAPTCHA widget (ALTCHA): it fetches a challenge and solves the proof of work as soon as the
// form shows, so that the answer is ready when the user submits. Each answer counts once on the
// server, so the form takes it (TAKE) and the widget starts on the next one at once. The widget's
// failures are the spec's (§8): not available on the server side, not available on window, script
// failed to load, not loaded, element not defined.
import { assign, fromPromise, setup } from 'xstate';
import { CAPTCHA_FAILURES, type CaptchaAnswer, type CaptchaLevel } from './captchaAnswer.ts';
import { problemOf, type Problem } from './failures.ts';

export * from './captchaAnswer.ts';

/** `level`: how hard the challenges it solves are (0, the forms' own, unless a refusal named another). */
type Context = { enabled: boolean; level: CaptchaLevel; token: string | null; error: Problem | null };

export const captchaMachine = setup({
  types: {
    context: {} as Context,
    input: {} as { enabled: boolean; level?: CaptchaLevel },
    events: {} as { type: 'TAKE' } | { type: 'RETRY' },
  },
  actors: {
    solve: fromPromise<string, { level: CaptchaLevel }>(async () => {
      throw new Error('solve is provided by the app');
    }),
  },
  guards: {
    enabled: ({ context }) => context.enabled,
  },
}).createMachine({
  id: 'captcha',
  context: ({ input }) => ({ enabled: input.enabled, level: input.level ?? 0, token: null, error: null }),
  initial: 'starting',
  states: {
    starting: { always: [{ guard: 'enabled', target: 'solving' }, { target: 'off' }] },
    solving: {
      invoke: {
        id: 'solve',
        src: 'solve',
        input: ({ context }) => ({ level: context.level }),
        onDone: { target: 'ready', actions: assign({ token: ({ event }) => event.output, error: null }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    // The answer went with a submit: the next one is on its way.
    ready: { on: { TAKE: { target: 'solving', actions: assign({ token: null }) } } },
    failed: { on: { RETRY: { target: 'solving', actions: assign({ error: null }) } } },
    // Not asked for: the form sends no answer, and the widget has nothing more to do.
    off: { type: 'final' },
  },
});

/** The answer a form sends now: the solution, or the failure that stands in its way. */
export function answerOf(snapshot: { value: unknown; context: Context }): CaptchaAnswer {
  if (snapshot.value === 'off') return { token: null };
  if (snapshot.value === 'ready' && snapshot.context.token) return { token: snapshot.context.token };
  if (snapshot.value === 'failed' && snapshot.context.error) return { error: snapshot.context.error };
  return { error: CAPTCHA_FAILURES.notLoaded };
}

// A sensitive screen's step-up (the security area's, a partner page's, the profile's): the screen
// waits behind /mfa/methods?single=true&redirect=…, whose code entry runs here; the right code leads
// on in the spec's order (../afterCode.ts).
import { assign } from 'xstate';
import { stepUpPath } from '../afterCode.ts';
import { dropsStepUp, followAfterCode, signOut, tellStep } from './actions.ts';
import { rootSetup } from './setup.ts';

/** The code screens move among themselves; the location stays the sensitive screen's (the way back). */
export const codeScreens = {
  guard: { type: 'routeInFlow' as const, params: { flow: 'mfa' as const } },
  actions: tellStep('mfa', 'stepUp'),
};

/** The step-up's code entry; leaving for another screen drops the wait. The right code is decided on
 * in the sibling state `afterStepUp`. */
export const steppingUp = rootSetup.createStateConfig({
  entry: { type: 'navigate', params: ({ context }) => ({ to: stepUpPath(context.location) }) },
  on: {
    ROUTE: [signOut, codeScreens, dropsStepUp],
  },
  invoke: {
    id: 'stepUp',
    src: 'mfa',
    input: ({ context }) => ({ methods: context.mfa?.methods ?? [], loginPayload: null }),
    onDone: {
      target: 'afterStepUp',
      actions: [
        { type: 'decideAfterCode', params: { purpose: 'stepUp' } },
        assign({ mfa: null, recoveryKeysLeft: ({ event }) => event.output.recoveryKeysLeft }),
      ],
    },
  },
});

/** Asks whether this session's second factor is recent: the step-up runs when it is not; else the
 * area opens (on one of its own states, when a branch of `first` says so). */
export const checkingStepUp = (open: string, ...first: { guard: 'onAuthenticatorPath'; target: string }[]) =>
  rootSetup.createStateConfig({
    invoke: {
      id: 'mfaStatus',
      src: 'mfaStatus',
      onDone: [
        {
          guard: 'stepUpNeeded',
          target: 'steppingUp',
          actions: assign({ mfa: ({ event }) => ({ payload: '', methods: event.output.methods }) }),
        },
        ...first,
        { target: open },
      ],
      // A status that cannot be read opens the screen: the server refuses a change all the same.
      onError: { target: open },
    },
  });

/** The spec's order after a step-up's code: a recovery key first shows the recovery screen, which
 * then returns here; any other code returns to the sensitive screen (`open`). */
export const afterStepUp = (open: string) =>
  rootSetup.createStateConfig({
    always: [
      {
        guard: { type: 'afterCodeIs', params: { kind: 'totpRecovery' } },
        target: '#root.signedIn.recovering',
        actions: followAfterCode,
      },
      { target: open, actions: followAfterCode },
    ],
  });

/** The states of an area whose sensitive screens (the route table's `sensitive`) wait for a recent
 * second factor; then `open`, the area's own state, runs. Its other screens open at once. */
export const behindStepUp = (open: ReturnType<typeof rootSetup.createStateConfig>) => ({
  initial: 'choosing' as const,
  states: {
    choosing: rootSetup.createStateConfig({
      always: [{ guard: 'atSensitive', target: 'checking' }, { target: 'open' }],
    }),
    checking: checkingStepUp('open'),
    steppingUp,
    afterStepUp: afterStepUp('open'),
    open,
  },
});

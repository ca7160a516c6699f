// Changing the password while signed in (/security/edit-password, spec §2 and §5): the current
// password, the new one with its checklist and confirmation (the new-password machine every flow
// uses), and whether this device stays signed in. The server checks everything again. Taken, it
// shows the success notice; when this session ended with the others, the flow ends and the root
// signs the person out (the sign-in screen says why). The current password counts against the
// account's ceiling of wrong passwords: past it the new-password machine keeps the puzzle's level
// the server named, and the SUBMIT passes the widget's answer on to it.
import { assign, sendTo, setup, type DoneActorEvent } from 'xstate';
import type { PasswordPolicy } from '../contract/password.ts';
import type { ChangePasswordAnswer } from '../contract/schemas.ts';
import type { CaptchaAnswer } from './captchaAnswer.ts';
import { newPasswordMachineOf } from './newPassword.ts';

/** What goes with the new password: the current one, and whether this session stays. */
export type PasswordChange = { current: string; keepThisSession: boolean };

export const changeMachine = newPasswordMachineOf<ChangePasswordAnswer, PasswordChange>();

type Context = {
  policy: PasswordPolicy;
  current: string;
  keepThisSession: boolean;
  /** A submit without the current password: the field says it is required. */
  currentMissing: boolean;
};

export const editPasswordMachine = setup({
  types: {
    context: {} as Context,
    input: {} as { policy: PasswordPolicy },
    events: {} as
      | { type: 'CURRENT'; value: string }
      | { type: 'KEEP'; value: boolean }
      /** `captcha`: the widget's answer, once the server wants one (the new-password machine judges it). */
      | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
      | DoneActorEvent<{ result: ChangePasswordAnswer }, 'newPassword'>,
    children: {} as { newPassword: 'newPassword' },
    output: {} as { sessionEnded: boolean },
  },
  actors: {
    /** The app provides its `resetPassword` (the change call). */
    newPassword: changeMachine,
  },
  guards: {
    hasCurrent: ({ context }) => context.current !== '',
    sessionEnded: ({ event }) =>
      event.type === 'xstate.done.actor.newPassword' && event.output.result?.session_ended === true,
  },
}).createMachine({
  id: 'editPassword',
  context: ({ input }) => ({ policy: input.policy, current: '', keepThisSession: true, currentMissing: false }),
  initial: 'editing',
  states: {
    editing: {
      on: {
        CURRENT: { actions: assign({ current: ({ event }) => event.value, currentMissing: false }) },
        KEEP: { actions: assign({ keepThisSession: ({ event }) => event.value }) },
        SUBMIT: [
          {
            guard: 'hasCurrent',
            // The new password's machine submits with what this form holds now.
            actions: [
              sendTo('newPassword', ({ context }) => ({
                type: 'PAYLOAD' as const,
                payload: { current: context.current, keepThisSession: context.keepThisSession },
              })),
              sendTo('newPassword', ({ event }) =>
                event.captcha ? { type: 'SUBMIT' as const, captcha: event.captcha } : { type: 'SUBMIT' as const },
              ),
            ],
          },
          { actions: assign({ currentMissing: true }) },
        ],
      },
      invoke: {
        id: 'newPassword',
        src: 'newPassword',
        input: ({ context }) => ({
          payload: { current: context.current, keepThisSession: context.keepThisSession },
          policy: context.policy,
        }),
        onDone: [
          { guard: 'sessionEnded', target: 'signedOut' },
          { target: 'changed', actions: assign({ current: '' }) },
        ],
      },
    },
    /** Taken, this device still signed in: the success notice. */
    changed: { type: 'final', output: { sessionEnded: false } },
    /** Taken, and this session ended with the others. */
    signedOut: { type: 'final', output: { sessionEnded: true } },
  },
  // The final state's own output (XState hands it over as the done-state event's).
  output: ({ event }) => event.output as { sessionEnded: boolean },
});

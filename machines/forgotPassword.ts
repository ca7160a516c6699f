// Forgotten password (spec §2 forgot-password): by email, or by phone with SMS, call or WhatsApp;
// the sent page names where the code went and times it; the code, typed in the shared code entry,
// buys a ticket; a new password is chosen with the new-password machine (same rules); then it is
// confirmed. Screens change through `show`. Back from any step returns to the request (the code
// already sent stays usable: Forward shows it again); a step the flow cannot show yet, or any more,
// shows the current one instead.
import { assign, fromPromise, setup } from 'xstate';
import type { PasswordPolicy } from '../contract/password.ts';
import { captchaProblem, captchaRefused, captchaToken, type CaptchaAnswer } from './captchaAnswer.ts';
import { codeEntryMachineOf, sentCodeOf, type SentAnswer, type SentCode } from './codeEntry.ts';
import { problemOf, type Problem } from './failures.ts';
import { newPasswordMachine } from './newPassword.ts';

export type ForgotMode = 'email' | 'phone';
export type ForgotScreen = 'email' | 'phone' | 'sent' | 'reset' | 'confirmed';
/** The server's answer: where the code went (masked), how, the payload its check goes with, and its timers. */
type Sent = SentAnswer & { recipient: string[]; technology: string; payload: string };

type Context = {
  mode: ForgotMode; policy: PasswordPolicy; username: string; channel: 'sms' | 'call' | 'whatsapp';
  sent: Sent | null; timers: SentCode | null; ticket: string | null; error: Problem | null;
  /** The CAPTCHA solution that goes with the next request for a code. */
  captcha: string | null;
};

export const forgotPasswordMachine = setup({
  types: {
    children: {} as { codeEntry: 'codeEntry'; newPassword: 'newPassword' },
    context: {} as Context,
    input: {} as { mode: ForgotMode; policy: PasswordPolicy },
    events: {} as
      /** The location moved to one of the flow's steps (Back, Forward, a link, the mode's tabs). */
      | { type: 'ROUTE'; step: ForgotScreen } | { type: 'CHANGE'; field: 'username'; value: string }
      | { type: 'SET_CHANNEL'; channel: 'sms' | 'call' | 'whatsapp' }
      | { type: 'SUBMIT'; captcha?: CaptchaAnswer } | { type: 'RESEND'; captcha?: CaptchaAnswer } | { type: 'CONTINUE' },
  },
  actors: {
    requestCode: fromPromise<Sent, { username: string; channel: 'sms' | 'call' | 'whatsapp' | null; captcha: string | null }>(async () => {
      throw new Error('requestCode is provided by the app');
    }),
    /** The code's check answers the ticket that lets a new password be chosen. */
    codeEntry: codeEntryMachineOf<{ payload: string }>(),
    newPassword: newPasswordMachine,
  },
  actions: {
    show: (_, _params: { screen: ForgotScreen }) => {},
    /** The request's mode from the step routed to; another mode starts its form empty. */
    takeMode: assign(({ context, event }) => {
      const mode = (event as { step: ForgotMode }).step;
      return mode === context.mode ? {} : { mode, username: '', error: null };
    }),
    takeSent: assign(({ event }) => {
      const sent = (event as unknown as { output: Sent }).output;
      return { sent, timers: sentCodeOf({ ...sent, target: sent.recipient.join(', ') }), error: null };
    }),
  },
  guards: {
    hasUsername: ({ context }) => context.username.trim() !== '',
    captchaRefused,
    /** Back to the request, by email or by phone. */
    routeToRequest: ({ event }) => event.type === 'ROUTE' && (event.step === 'email' || event.step === 'phone'),
    /** Forward to the code still held, before it bought a ticket. */
    routeToCode: ({ context, event }) => event.type === 'ROUTE' && event.step === 'sent' && context.sent !== null && context.ticket === null,
    /** Forward to the new password, while the ticket is unused. */
    routeToReset: ({ context, event }) => event.type === 'ROUTE' && event.step === 'reset' && context.ticket !== null,
  },
}).createMachine({
  id: 'forgotPassword',
  context: ({ input }) => ({ mode: input.mode, policy: input.policy, username: '', channel: 'sms', sent: null, timers: null, ticket: null, error: null, captcha: null }),
  initial: 'asking',
  states: {
    asking: {
      on: {
        ROUTE: [
          { guard: 'routeToRequest', actions: 'takeMode' },
          { guard: 'routeToCode', target: 'sent' },
          { guard: 'routeToReset', target: 'resetting' },
          { actions: { type: 'show', params: ({ context }) => ({ screen: context.mode }) } },
        ],
        CHANGE: { actions: assign(({ event }) => ({ username: event.value, error: null })) },
        SET_CHANNEL: { actions: assign(({ event }) => ({ channel: event.channel })) },
        SUBMIT: [
          { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
          { guard: 'hasUsername', target: 'requesting', actions: assign({ captcha: captchaToken }) },
        ],
      },
    },
    requesting: {
      invoke: {
        id: 'requestCode',
        src: 'requestCode',
        input: ({ context }) => ({ username: context.username.trim(), channel: context.mode === 'phone' ? context.channel : null, captcha: context.captcha }),
        onDone: { target: 'sent', actions: 'takeSent' },
        onError: { target: 'asking', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    resending: {
      invoke: {
        id: 'resendCode',
        src: 'requestCode',
        input: ({ context }) => ({ username: context.username.trim(), channel: context.mode === 'phone' ? context.channel : null, captcha: context.captcha }),
        onDone: { target: 'sent', actions: 'takeSent' },
        // A failed resend keeps the code already sent usable.
        onError: { target: 'sent', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    sent: {
      entry: { type: 'show', params: { screen: 'sent' } },
      invoke: {
        id: 'codeEntry',
        src: 'codeEntry',
        input: ({ context }) => ({ ticket: context.sent!.payload, length: 8, sent: context.timers, error: context.error }),
        onDone: { target: 'resetting', actions: assign({ ticket: ({ event }) => event.output.result!.payload, error: null }) },
      },
      on: {
        // From the code entry once its wait is over, with the CAPTCHA's answer the screen took.
        RESEND: [
          { guard: 'captchaRefused', target: 'sent', reenter: true, actions: assign({ error: captchaProblem }) },
          { target: 'resending', actions: assign({ captcha: captchaToken, error: null }) },
        ],
        ROUTE: [
          { guard: 'routeToRequest', target: 'asking', actions: 'takeMode' },
          { actions: { type: 'show', params: { screen: 'sent' } } },
        ],
      },
    },
    resetting: {
      entry: { type: 'show', params: { screen: 'reset' } },
      invoke: {
        id: 'newPassword',
        src: 'newPassword',
        input: ({ context }) => ({ payload: context.ticket!, policy: context.policy }),
        onDone: { target: 'confirmed', actions: assign({ ticket: null }) },
      },
      on: {
        ROUTE: [
          { guard: 'routeToRequest', target: 'asking', actions: 'takeMode' },
          { actions: { type: 'show', params: { screen: 'reset' } } },
        ],
      },
    },
    // The password is changed: nothing before it can show again.
    confirmed: {
      entry: { type: 'show', params: { screen: 'confirmed' } },
      on: {
        CONTINUE: 'done',
        ROUTE: { actions: { type: 'show', params: { screen: 'confirmed' } } },
      },
    },
    done: { type: 'final' },
  },
});

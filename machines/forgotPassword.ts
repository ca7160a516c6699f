// Forgotten password (spec §2 forgot-password): by email, or by phone with SMS, call or WhatsApp;
// the sent page names where the code went; the code buys a ticket; a new password is chosen with
// the weak-password machine (same rules); then it is confirmed. Screens change through `show`.
import { assign, fromPromise, setup } from 'xstate';
import type { PasswordPolicy } from '../contract/password.ts';
import { sanitiseCodeInput } from '../contract/rules.ts';
import { captchaProblem, captchaRefused, captchaToken, type CaptchaAnswer } from './captchaAnswer.ts';
import { problemOf, type Problem } from './failures.ts';
import { newPasswordMachine } from './newPassword.ts';

export type ForgotMode = 'email' | 'phone';
export type ForgotScreen = 'email' | 'phone' | 'sent' | 'reset' | 'confirmed';
type Sent = { recipient: string[]; technology: string; payload: string };

type Context = {
  mode: ForgotMode; policy: PasswordPolicy; username: string; channel: 'sms' | 'call' | 'whatsapp';
  sent: Sent | null; code: string; ticket: string | null; error: Problem | null;
  /** The CAPTCHA solution that goes with the next request for a code. */
  captcha: string | null;
};

export const forgotPasswordMachine = setup({
  types: {
    context: {} as Context,
    input: {} as { mode: ForgotMode; policy: PasswordPolicy },
    events: {} as
      | { type: 'SET_MODE'; mode: ForgotMode } | { type: 'CHANGE'; field: 'username' | 'code'; value: string }
      | { type: 'SET_CHANNEL'; channel: 'sms' | 'call' | 'whatsapp' }
      | { type: 'SUBMIT'; captcha?: CaptchaAnswer } | { type: 'RESEND'; captcha: CaptchaAnswer } | { type: 'CONTINUE' },
  },
  actors: {
    requestCode: fromPromise<Sent, { username: string; channel: 'sms' | 'call' | 'whatsapp' | null; captcha: string | null }>(async () => {
      throw new Error('requestCode is provided by the app');
    }),
    verifyCode: fromPromise<{ payload: string }, { payload: string; code: string }>(async () => {
      throw new Error('verifyCode is provided by the app');
    }),
    newPassword: newPasswordMachine,
  },
  actions: {
    show: (_, _params: { screen: ForgotScreen }) => {},
  },
  guards: {
    hasUsername: ({ context }) => context.username.trim() !== '',
    eightDigits: ({ context }) => /^\d{8}$/.test(context.code),
    captchaRefused,
    codeSent: ({ context }) => context.sent !== null,
  },
}).createMachine({
  id: 'forgotPassword',
  context: ({ input }) => ({ mode: input.mode, policy: input.policy, username: '', channel: 'sms', sent: null, code: '', ticket: null, error: null, captcha: null }),
  initial: 'asking',
  states: {
    asking: {
      on: {
        SET_MODE: { actions: [assign(({ event }) => ({ mode: event.mode, username: '', error: null }))] },
        CHANGE: { actions: assign(({ event }) => (event.field === 'username' ? { username: event.value, error: null } : {})) },
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
        onDone: { target: 'sent', actions: assign(({ event }) => ({ sent: event.output, code: '', error: null })) },
        onError: [
          // A failed resend keeps the code already sent usable.
          { guard: 'codeSent', target: 'sent', actions: assign({ error: ({ event }) => problemOf(event) }) },
          { target: 'asking', actions: assign({ error: ({ event }) => problemOf(event) }) },
        ],
      },
    },
    sent: {
      entry: { type: 'show', params: { screen: 'sent' } },
      on: {
        CHANGE: { actions: assign(({ event }) => (event.field === 'code' ? { code: sanitiseCodeInput(event.value).slice(0, 8), error: null } : {})) },
        SUBMIT: { guard: 'eightDigits', target: 'verifying' },
        RESEND: [
          { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
          { target: 'requesting', actions: assign({ captcha: captchaToken }) },
        ],
      },
    },
    verifying: {
      invoke: {
        id: 'verifyCode',
        src: 'verifyCode',
        input: ({ context }) => ({ payload: context.sent!.payload, code: context.code }),
        onDone: { target: 'resetting', actions: assign({ ticket: ({ event }) => event.output.payload }) },
        onError: { target: 'sent', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    resetting: {
      entry: { type: 'show', params: { screen: 'reset' } },
      invoke: {
        id: 'newPassword',
        src: 'newPassword',
        input: ({ context }) => ({ payload: context.ticket!, policy: context.policy }),
        onDone: 'confirmed',
      },
    },
    confirmed: {
      entry: { type: 'show', params: { screen: 'confirmed' } },
      on: { CONTINUE: 'done' },
    },
    done: { type: 'final' },
  },
});

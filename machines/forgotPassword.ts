// Forgotten password (spec §2 forgot-password): by email, or by phone with SMS, call or WhatsApp;
// the sent page names where the code went and times it; the code, typed in the shared code entry,
// buys a ticket; a new password is chosen with the new-password machine (same rules); then it is
// confirmed. Screens change through `show`. Back from any step returns to the request (the code
// already sent stays usable: Forward shows it again); a step the flow cannot show yet, or any more,
// shows the current one instead. The flow keeps what it needs to resume in the tab's memory
// (`keep`, `recall`): a reload on the code or on the new password comes back to it while the code
// is alive, and says it expired otherwise.
import { assertEvent, assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { PasswordPolicy } from '../contract/password.ts';
import { SENT_CODE_LENGTH } from '../contract/rules.ts';
import { captchaProblem, captchaRefused, captchaToken, type CaptchaAnswer } from './captchaAnswer.ts';
import {
  codeEntryMachineOf,
  sentCodeOf,
  type CodeSent,
  type NewCode,
  type SentAnswer,
  type SentCode,
} from './codeEntry.ts';
import { problemOf, type Problem } from './failures.ts';
import { newPasswordMachine } from './newPassword.ts';

export type ForgotMode = 'email' | 'phone';
export type ForgotScreen = 'email' | 'phone' | 'sent' | 'reset' | 'confirmed';
/** The server's answer: where the code went (masked), how, the payload its check goes with, and its timers. */
type Sent = SentAnswer & { recipient: string[]; technology: string; payload: string };
/** A code's request: to whom, and by which channel for a phone. */
export type CodeRequest = { username: string; channel: 'sms' | 'call' | 'whatsapp' | null };

/** The code the server says it sent, as the code entry takes it: its ticket and timers, to the recipients. */
export const newCodeOf = (sent: Sent): NewCode => ({
  ticket: sent.payload,
  sent: { ...sent, target: sent.recipient.join(', ') },
});

/** What a reload needs to resume: the request, the code's answer and timers, and the ticket once bought. */
export type ResetMemory = {
  mode: ForgotMode;
  username: string;
  channel: 'sms' | 'call' | 'whatsapp';
  sent: Sent;
  timers: SentCode;
  ticket: string | null;
};

type Context = {
  mode: ForgotMode;
  policy: PasswordPolicy;
  username: string;
  channel: 'sms' | 'call' | 'whatsapp';
  /** The step whose path started the flow. */
  entry: ForgotScreen;
  sent: Sent | null;
  timers: SentCode | null;
  ticket: string | null;
  error: Problem | null;
  /** The CAPTCHA solution that goes with the next request for a code. */
  captcha: string | null;
};

type ForgotEvent =
  /** The location moved to one of the flow's steps (Back, Forward, a link, the mode's tabs). */
  | { type: 'ROUTE'; step: ForgotScreen }
  | { type: 'CHANGE'; field: 'username'; value: string }
  | { type: 'SET_CHANNEL'; channel: 'sms' | 'call' | 'whatsapp' }
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
  /** From the code entry, once it sent a new code. */
  | CodeSent
  | { type: 'CONTINUE' }
  /** The ends of the calls whose answers the guards and actions read. */
  | DoneActorEvent<ResetMemory | null, 'recall'>
  | DoneActorEvent<Sent, 'requestCode'>;

/** The request's steps: by email or by phone. */
const isRequest = (step: ForgotScreen): step is ForgotMode => step === 'email' || step === 'phone';

const recalled = (event: ForgotEvent) => (event.type === 'xstate.done.actor.recall' ? (event.output ?? null) : null);
/** What the flow keeps for a reload, once a code was sent. */
const memoryOf = (context: Context): ResetMemory => ({
  mode: context.mode,
  username: context.username,
  channel: context.channel,
  sent: context.sent!,
  timers: context.timers!,
  ticket: context.ticket,
});
/** The request for a code, first or again, as the form holds it. */
const codeRequestOf = ({ context }: { context: Context }): CodeRequest => ({
  username: context.username.trim(),
  channel: context.mode === 'phone' ? context.channel : null,
});
/** The first request carries the form's CAPTCHA answer; a new one, the code screen's. */
const requestOf = ({ context }: { context: Context }) => ({ ...codeRequestOf({ context }), captcha: context.captcha });
/** The request's screen, by email or by phone. */
const showRequest = {
  type: 'show',
  params: ({ context }: { context: Context }) => ({ screen: context.mode }),
} as const;
const keepMemory = { type: 'keep', params: ({ context }: { context: Context }) => memoryOf(context) } as const;

export const forgotPasswordMachine = setup({
  types: {
    children: {} as { codeEntry: 'codeEntry'; newPassword: 'newPassword' },
    context: {} as Context,
    /** `entry`: the step whose path started the flow (a reload lands there). */
    /** `username`: the address typed at sign-in, to start from. */
    input: {} as { mode: ForgotMode; policy: PasswordPolicy; entry?: ForgotScreen; username?: string },
    events: {} as ForgotEvent,
  },
  actors: {
    /** What this tab kept of the flow, if anything. */
    recall: fromPromise<ResetMemory | null>(async () => null),
    requestCode: fromPromise<Sent, CodeRequest & { captcha: string | null }>(async () => {
      throw new Error('requestCode is provided by the app');
    }),
    /** The code's check answers the ticket that lets a new password be chosen. */
    codeEntry: codeEntryMachineOf<{ payload: string }, CodeRequest>(),
    newPassword: newPasswordMachine,
  },
  actions: {
    /** The address typed, for the app to keep (provided by the app; nothing here). */
    typed: (_, _params: { value: string }) => {},
    show: (_, _params: { screen: ForgotScreen }) => {},
    /** Keeps what a reload needs (null: nothing any more). */
    keep: (_, _params: ResetMemory | null) => {},
    /** The request's mode from the step routed to; another mode starts its form empty. */
    takeMode: assign(({ context, event }) => {
      assertEvent(event, 'ROUTE');
      const mode = event.step;
      // Only after `routeToRequest`: the step is the request's, by email or by phone.
      return !isRequest(mode) || mode === context.mode ? {} : { mode, username: '', error: null };
    }),
    takeSent: assign(({ context, event }) => {
      assertEvent(event, ['xstate.done.actor.requestCode', 'CODE_SENT']);
      // A new code went to the same recipients: its ticket and timers replace the first one's.
      if (event.type === 'CODE_SENT')
        return { sent: { ...context.sent!, payload: event.ticket }, timers: event.sent, error: null };
      const sent = event.output;
      return { sent, timers: sentCodeOf(newCodeOf(sent).sent), ticket: null, error: null };
    }),
    takeMemory: assign(({ event }) => {
      const { mode, username, channel, sent, timers, ticket } = recalled(event)!;
      return { mode, username, channel, sent, timers, ticket };
    }),
  },
  guards: {
    hasUsername: ({ context }) => context.username.trim() !== '',
    captchaRefused,
    /** Back to the request, by email or by phone. */
    routeToRequest: ({ event }) => event.type === 'ROUTE' && isRequest(event.step),
    /** Forward to the code still held, before it bought a ticket. */
    routeToCode: ({ context, event }) =>
      event.type === 'ROUTE' && event.step === 'sent' && context.sent !== null && context.ticket === null,
    /** Forward to the new password, while the ticket is unused. */
    routeToReset: ({ context, event }) => event.type === 'ROUTE' && event.step === 'reset' && context.ticket !== null,
    resumesReset: ({ context, event }) => context.entry === 'reset' && recalled(event)?.ticket != null,
    resumesCode: ({ context, event }) => {
      const memory = recalled(event);
      return (
        context.entry === 'sent' && memory !== null && memory.ticket === null && memory.timers.expiresAt > Date.now()
      );
    },
    /** A reload on a step whose code or ticket is gone: say so on the request. */
    stepGone: ({ context }) => context.entry === 'sent' || context.entry === 'reset',
  },
}).createMachine({
  id: 'forgotPassword',
  context: ({ input }) => ({
    mode: input.mode,
    policy: input.policy,
    entry: input.entry ?? input.mode,
    username: input.username ?? '',
    channel: 'sms',
    sent: null,
    timers: null,
    ticket: null,
    error: null,
    captcha: null,
  }),
  initial: 'recalling',
  states: {
    recalling: {
      invoke: {
        id: 'recall',
        src: 'recall',
        onDone: [
          { guard: 'resumesReset', target: 'resetting', actions: 'takeMemory' },
          { guard: 'resumesCode', target: 'sent', actions: 'takeMemory' },
          {
            guard: 'stepGone',
            target: 'asking',
            actions: [{ type: 'keep', params: null }, assign({ error: { code: 'code_expired' } }), showRequest],
          },
          { target: 'asking', actions: showRequest },
        ],
        onError: { target: 'asking', actions: showRequest },
      },
    },
    asking: {
      on: {
        ROUTE: [
          { guard: 'routeToRequest', actions: 'takeMode' },
          { guard: 'routeToCode', target: 'sent' },
          { guard: 'routeToReset', target: 'resetting' },
          { actions: showRequest },
        ],
        // What is typed here carries back to sign-in: the app tells the root.
        CHANGE: {
          actions: [
            assign(({ event }) => ({ username: event.value, error: null })),
            { type: 'typed', params: ({ event }) => ({ value: event.value }) },
          ],
        },
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
        input: requestOf,
        onDone: { target: 'sent', actions: ['takeSent', keepMemory] },
        onError: { target: 'asking', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    sent: {
      entry: { type: 'show', params: { screen: 'sent' } },
      invoke: {
        id: 'codeEntry',
        src: 'codeEntry',
        input: ({ context }) => ({
          ticket: context.sent!.payload,
          length: SENT_CODE_LENGTH,
          sent: context.timers,
          error: context.error,
          resend: codeRequestOf({ context }),
          // Nothing of the delivery is asked: the screen must not tell a real account from an unknown one.
          followsDelivery: false,
        }),
        onDone: {
          target: 'resetting',
          actions: [assign({ ticket: ({ event }) => event.output.result!.payload, error: null }), keepMemory],
        },
      },
      on: {
        // The code entry sent a new one (with the CAPTCHA's answer the screen took): a reload comes back to it.
        CODE_SENT: { actions: ['takeSent', keepMemory] },
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
        onDone: { target: 'confirmed', actions: [assign({ ticket: null }), { type: 'keep', params: null }] },
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

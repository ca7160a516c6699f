// Typing a code: the one machine behind every code a person types (spec §4 "MFA" and the code
// screens of §2) — a sign-in's or a step-up's second factor, an enrolment's confirmation, an
// authenticator's first code, a forgotten password's code, onboarding's email and phone. A flow
// specialises it with `.provide()`: its `check` actor is the server call that takes the code, and its
// `send` actor the call that sends one.
//
// A code the server sent carries two timers from the server's answer: its expiry and the wait before
// a new one. A code that was not sent (authenticator, recovery key, card number) has neither. The flow
// sends the first code (it alone knows where: the method chosen, the address typed) and hands the
// entry that request (`resend`); once the wait is over, RESEND sends it again from here, with the
// CAPTCHA's answer where the screen has one. The new code restarts the timers, and the flow hears of
// it (CODE_SENT) to keep it for Back, Forward and a reload. A new code that could not be sent leaves
// the one before usable, unless the failure ends the entry (`endsOn`).
//
// Past an account-wide ceiling of wrong codes the server asks every check for a solved CAPTCHA (the
// answer carries `captcha: true` and its level): from then on the form shows the widget at that
// level, and each SUBMIT carries its answer, which the check sends along (the X-Captcha header).
//
// Where the flow says so (`followsDelivery`), the entry asks every few seconds how the sent code is
// getting there (the `askDelivery` actor), so the screen can say it went another way; it stops once
// the code is delivered or expired, once it is spent, and at the first failed ask. A forgotten
// password's entry never asks: its screen must say nothing of a real account.
import { assertEvent, assign, fromPromise, not, sendParent, setup, stateIn, type DoneActorEvent } from 'xstate';
import type { CodeDelivery } from '../contract/schemas.ts';
import { sanitiseCodeInput } from '../contract/rules.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import { failureBodyOf, problemOf, type Problem, type ProblemCode } from './failures.ts';

/** A typed or pasted code as the check takes it: its letters and digits, at most `length` of them. */
const codeOf = (value: string, length: number) => sanitiseCodeInput(value).slice(0, length);

/** A code on its way to a person: where it went (masked) and its two instants, in the browser's time. */
export type SentCode = { target: string | null; expiresAt: number; resendAt: number | null };

/** What a server answers when it sends a code; seconds-to-go are preferred to instants, because
 * the browser's clock may be wrong and a countdown must not be. */
export type SentAnswer = {
  target?: string | null;
  expires_in?: number;
  expires_at?: string;
  resend_in?: number;
  resend_at?: string;
};

/** How often the entry asks how its code is getting there. */
export const DELIVERY_ASK_MS = 5000;

/** The timers of a sent code, derived once from the server's answer. */
export function sentCodeOf(answer: SentAnswer, now = Date.now()): SentCode {
  const instant = (seconds: number | undefined, at: string | undefined) =>
    seconds !== undefined ? now + seconds * 1000 : at !== undefined ? Date.parse(at) : null;
  return {
    target: answer.target ?? null,
    expiresAt: instant(answer.expires_in, answer.expires_at) ?? now,
    resendAt: instant(answer.resend_in, answer.resend_at),
  };
}

export type CodeEntryInput<TRequest = unknown> = {
  /** What the check sends with the code: a challenge's payload, an onboarding flow's token. */
  ticket: string;
  /** Exactly this many letters or digits make a complete code. */
  length: number;
  /** The sent code's timers, or null for a code nobody sent. */
  sent: SentCode | null;
  /** A problem to show from the start (a new code that could not be sent). */
  error?: Problem | null;
  /** Trust this device, as chosen before the code (a sign-in's choice of method offers it too). */
  remember?: boolean;
  /** Failures that end the entry instead of letting the person try again (a flow that expired). */
  endsOn?: readonly ProblemCode[];
  /** The flow's request for the code, sent again on RESEND; none for a code that is not sent again. */
  resend?: TRequest | null;
  /** Ask how the sent code is getting there (its ticket names its challenge); never for a forgotten
   * password's code, nor where the ticket names no challenge (onboarding's flow token). */
  followsDelivery?: boolean;
};

/** A new code, as the flow's `send` reads the server's answer: what its check goes with now, and its timers. */
export type NewCode = { ticket: string; sent: SentAnswer };
/** What the entry tells its flow once a new code went out. */
export type CodeSent = { type: 'CODE_SENT'; ticket: string; sent: SentCode };

/** How an entry ends: the check's answer, or the failure that ended it (`endsOn`), with the body of
 * the server's answer when it carries more than an error (a merge offer, say). */
export type CodeEntryOutput<TResult> =
  { result: TResult; failure: null } | { result: null; failure: Problem; body?: Record<string, unknown> };

type Context<TResult, TRequest> = CodeEntryInput<TRequest> & {
  code: string;
  remember: boolean;
  error: Problem | null;
  result: TResult | null;
  /** The body of the answer that ended the entry, for the flow to read. */
  endedWith: Record<string, unknown> | null;
  /** The puzzle the server wants with each check (null: none), and the solution going with this one. */
  captchaLevel: CaptchaLevel | null;
  captcha: string | null;
  /** A new code went out from this screen: the screen says so, and that the one before is void. */
  resent: boolean;
  /** How the code is getting there, as last heard (null: not asked yet, or never). */
  delivery: CodeDelivery | null;
};

export type CodeEntryEvent =
  | { type: 'TYPE'; value: string }
  /** `captcha`: the widget's answer, once the server wants one. */
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
  /** Trust this device (only a sign-in's second factor offers it). */
  | { type: 'TOGGLE_REMEMBER' }
  /** `captcha`: the widget's answer, where the screen asks for one with a new code. */
  | { type: 'RESEND'; captcha?: CaptchaAnswer };

/** The code-entry machine of a flow whose check answers `TResult` and whose code is sent by `TRequest`;
 * the flow reads the check's answer from the output. */
export const codeEntryMachineOf = <TResult, TRequest = unknown>() =>
  setup({
    types: {
      context: {} as Context<TResult, TRequest>,
      input: {} as CodeEntryInput<TRequest>,
      events: {} as CodeEntryEvent | DoneActorEvent<NewCode, 'send'> | DoneActorEvent<CodeDelivery, 'askDelivery'>,
      output: {} as CodeEntryOutput<TResult>,
    },
    actors: {
      check: fromPromise<TResult, { ticket: string; code: string; remember: boolean; captcha: string | null }>(
        async () => {
          throw new Error('check is provided by the flow');
        },
      ),
      send: fromPromise<NewCode, { request: TRequest; captcha: string | null }>(async () => {
        throw new Error('send is provided by the flow');
      }),
      askDelivery: fromPromise<CodeDelivery, { ticket: string }>(async () => {
        throw new Error('askDelivery is provided by the app');
      }),
    },
    actions: {
      /** What was typed or pasted, letters and digits only (a pasted "1234 5678" or "1234-5678"). */
      takeCode: assign(({ context, event }) => {
        assertEvent(event, 'TYPE');
        return { code: codeOf(event.value, context.length), error: null };
      }),
      /** The new code replaces the old one: its ticket and timers, and an empty field. */
      takeNewCode: assign(({ event }) => {
        assertEvent(event, 'xstate.done.actor.send');
        return {
          ticket: event.output.ticket,
          sent: sentCodeOf(event.output.sent),
          code: '',
          error: null,
          resent: true,
          delivery: null,
        };
      }),
      /** A failure the flow named ends the entry: the flow reads it, with the answer's body. */
      end: assign(({ event }) => ({ error: problemOf(event), endedWith: failureBodyOf(event) })),
      /** The flow keeps the new code (Back, Forward and a reload come back to it). */
      tellFlow: sendParent(({ context }): CodeSent => ({
        type: 'CODE_SENT',
        ticket: context.ticket,
        sent: context.sent!,
      })),
    },
    delays: {
      expiry: ({ context }) => Math.max(0, (context.sent?.expiresAt ?? 0) - Date.now()),
      resendCooldown: ({ context }) => Math.max(0, (context.sent?.resendAt ?? 0) - Date.now()),
      deliveryAsk: DELIVERY_ASK_MS,
    },
    guards: {
      complete: ({ context }) => context.code.length === context.length,
      /** This typing makes the code whole, and another than the one there (a wrong code is not
       * sent again by a key pressed after it), with no puzzle wanted. */
      completesCode: ({ context, event }) => {
        assertEvent(event, 'TYPE');
        const code = codeOf(event.value, context.length);
        return code.length === context.length && code !== context.code && context.captchaLevel === null;
      },
      /** A complete code, but the puzzle the server wants is not solved (yet). */
      captchaRefused: ({ context, event }) =>
        context.code.length === context.length && context.captchaLevel !== null && captchaRefused({ event }),
      sent: ({ context }) => context.sent !== null,
      resendable: ({ context }) => context.resend != null && context.sent?.resendAt != null,
      resendCaptchaRefused: captchaRefused,
      ending: ({ context, event }) => (context.endsOn ?? []).includes(problemOf(event).code),
      followsDelivery: ({ context }) => context.followsDelivery === true && context.sent !== null,
      codeLives: not(stateIn({ entering: { expiry: 'expired' } })),
      delivered: ({ event }) => event.type === 'xstate.done.actor.askDelivery' && event.output.status === 'delivered',
    },
  }).createMachine({
    id: 'codeEntry',
    context: ({ input }) => ({
      ...input,
      code: '',
      remember: input.remember ?? false,
      error: input.error ?? null,
      result: null,
      endedWith: null,
      captchaLevel: null,
      captcha: null,
      resent: false,
      delivery: null,
    }),
    initial: 'entering',
    states: {
      entering: {
        type: 'parallel',
        states: {
          input: {
            initial: 'typing',
            states: {
              typing: {
                on: {
                  // A wrong code's error shows until the person types again. A code typed or pasted
                  // whole goes by itself, unless the server wants a puzzle solved with it (the
                  // person then confirms once it is).
                  TYPE: [
                    { guard: 'completesCode', target: 'checking', actions: ['takeCode', assign({ captcha: null })] },
                    { actions: 'takeCode' },
                  ],
                  TOGGLE_REMEMBER: { actions: assign(({ context }) => ({ remember: !context.remember })) },
                  SUBMIT: [
                    { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
                    { guard: 'complete', target: 'checking', actions: assign({ captcha: captchaToken }) },
                    // Confirmed too soon: the field says the code is not whole yet.
                    { actions: assign({ error: { code: 'code_incomplete' } }) },
                  ],
                },
              },
              checking: {
                invoke: {
                  id: 'check',
                  src: 'check',
                  input: ({ context }) => ({
                    ticket: context.ticket,
                    code: context.code,
                    remember: context.remember,
                    captcha: context.captcha,
                  }),
                  onDone: { target: '#codeEntry.checked', actions: assign({ result: ({ event }) => event.output }) },
                  onError: [
                    { guard: 'ending', target: '#codeEntry.ended', actions: 'end' },
                    {
                      target: 'typing',
                      actions: assign({
                        error: ({ event }) => problemOf(event),
                        captchaLevel: nextCaptchaLevel,
                      }),
                    },
                  ],
                },
              },
            },
          },
          // Until the code expires; then the screen says so (the server refuses it anyway).
          expiry: {
            initial: 'deciding',
            states: {
              deciding: { always: [{ guard: 'sent', target: 'running' }, { target: 'untimed' }] },
              running: { after: { expiry: 'expired' } },
              expired: {},
              untimed: {},
            },
          },
          // The wait before a new code may be asked for, then the flow's request sent again.
          resend: {
            initial: 'deciding',
            states: {
              deciding: { always: [{ guard: 'resendable', target: 'cooling' }, { target: 'unavailable' }] },
              cooling: { after: { resendCooldown: 'ready' } },
              ready: {
                on: {
                  RESEND: [
                    { guard: 'resendCaptchaRefused', actions: assign({ error: captchaProblem }) },
                    { target: 'sending', actions: assign({ error: null }) },
                  ],
                },
              },
              sending: {
                invoke: {
                  id: 'send',
                  src: 'send',
                  input: ({ context, event }) => ({ request: context.resend!, captcha: captchaToken({ event }) }),
                  // A new entry, in place: the field empties and both timers start again.
                  onDone: { target: '#codeEntry.entering', reenter: true, actions: ['takeNewCode', 'tellFlow'] },
                  onError: [
                    { guard: 'ending', target: '#codeEntry.ended', actions: 'end' },
                    // A new code that could not be sent leaves the one before usable.
                    { target: 'ready', actions: assign({ error: ({ event }) => problemOf(event) }) },
                  ],
                },
              },
              unavailable: {},
            },
          },
          // How the code is getting there, asked while it can still be typed; the answer stays shown.
          delivery: {
            initial: 'deciding',
            states: {
              deciding: { always: [{ guard: 'followsDelivery', target: 'waiting' }, { target: 'off' }] },
              waiting: { after: { deliveryAsk: [{ guard: 'codeLives', target: 'asking' }, { target: 'off' }] } },
              asking: {
                invoke: {
                  id: 'askDelivery',
                  src: 'askDelivery',
                  input: ({ context }) => ({ ticket: context.ticket }),
                  onDone: [
                    { guard: 'delivered', target: 'off', actions: assign({ delivery: ({ event }) => event.output }) },
                    { target: 'waiting', actions: assign({ delivery: ({ event }) => event.output }) },
                  ],
                  // Unknown to the server, or unreachable: nothing is said, and nothing asked again.
                  onError: 'off',
                },
              },
              off: {},
            },
          },
        },
      },
      checked: { type: 'final' },
      ended: { type: 'final' },
    },
    output: ({ context }) =>
      context.result !== null
        ? { result: context.result, failure: null }
        : { result: null, failure: context.error!, ...(context.endedWith ? { body: context.endedWith } : {}) },
  });

/** For a flow that reads nothing from the check's answer. */
export const codeEntryMachine = codeEntryMachineOf<unknown>();

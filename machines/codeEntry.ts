// Typing a code: the one machine behind every code a person types (spec §4 "MFA" and the code
// screens of §2) — a sign-in's or a step-up's second factor, an enrolment's confirmation, an
// authenticator's first code, a forgotten password's code, onboarding's email and phone. A flow
// specialises it with `.provide()`: its `check` actor is the server call that takes the code.
//
// A code the server sent carries two timers from the server's answer: its expiry and the wait before
// a new one. A code that was not sent (authenticator, recovery key, card number) has neither. A new
// code is the flow's business (it alone knows where to send it, and whether a CAPTCHA goes along),
// so RESEND, once the wait is over, goes up to the flow, which asks for one and starts a new entry.
//
// Past an account-wide ceiling of wrong codes the server asks every check for a solved CAPTCHA (the
// answer carries `captcha: true` and its level): from then on the form shows the widget at that
// level, and each SUBMIT carries its answer, which the check sends along (the X-Captcha header).
import { assign, fromPromise, sendParent, setup } from 'xstate';
import { sanitiseCodeInput } from '../contract/rules.ts';
import {
  captchaLevelOf,
  captchaProblem,
  captchaRefused,
  captchaToken,
  type CaptchaAnswer,
  type CaptchaLevel,
} from './captchaAnswer.ts';
import { errorOf, failureBodyOf, problemOf, type Problem, type ProblemCode } from './failures.ts';

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

export type CodeEntryInput = {
  /** What the check sends with the code: a challenge's payload, an onboarding flow's token. */
  ticket: string;
  /** Exactly this many letters or digits make a complete code. */
  length: number;
  /** The sent code's timers, or null for a code nobody sent. */
  sent: SentCode | null;
  /** A problem to show from the start (a new code that could not be sent). */
  error?: Problem | null;
  /** Failures that end the entry instead of letting the person try again (a flow that expired). */
  endsOn?: readonly ProblemCode[];
};

/** How an entry ends: the check's answer, or the failure that ended it (`endsOn`), with the body of
 * the server's answer when it carries more than an error (a merge offer, say). */
export type CodeEntryOutput<TResult> =
  { result: TResult; failure: null } | { result: null; failure: Problem; body?: Record<string, unknown> };

type Context<TResult> = CodeEntryInput & {
  code: string;
  remember: boolean;
  error: Problem | null;
  result: TResult | null;
  /** The body of the answer that ended the entry, for the flow to read. */
  endedWith: Record<string, unknown> | null;
  /** The puzzle the server wants with each check (null: none), and the solution going with this one. */
  captchaLevel: CaptchaLevel | null;
  captcha: string | null;
};

export type CodeEntryEvent =
  | { type: 'TYPE'; value: string }
  /** `captcha`: the widget's answer, once the server wants one. */
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
  /** Trust this device (only a sign-in's second factor offers it). */
  | { type: 'TOGGLE_REMEMBER' }
  | { type: 'RESEND'; captcha?: CaptchaAnswer };

/** The code-entry machine of a flow whose check answers `TResult`; the flow reads it from the output. */
export const codeEntryMachineOf = <TResult>() =>
  setup({
    types: {
      context: {} as Context<TResult>,
      input: {} as CodeEntryInput,
      events: {} as CodeEntryEvent,
      output: {} as CodeEntryOutput<TResult>,
    },
    actors: {
      check: fromPromise<TResult, { ticket: string; code: string; remember: boolean; captcha: string | null }>(
        async () => {
          throw new Error('check is provided by the flow');
        },
      ),
    },
    actions: {
      /** The RESEND, with what came with it, goes up to the flow that started this entry. */
      askForNewCode: sendParent(({ event }) => event),
    },
    delays: {
      expiry: ({ context }) => Math.max(0, (context.sent?.expiresAt ?? 0) - Date.now()),
      resendCooldown: ({ context }) => Math.max(0, (context.sent?.resendAt ?? 0) - Date.now()),
    },
    guards: {
      complete: ({ context }) => context.code.length === context.length,
      /** A complete code, but the puzzle the server wants is not solved (yet). */
      captchaRefused: ({ context, event }) =>
        context.code.length === context.length && context.captchaLevel !== null && captchaRefused({ event }),
      sent: ({ context }) => context.sent !== null,
      resendable: ({ context }) => context.sent?.resendAt != null,
      ending: ({ context, event }) => (context.endsOn ?? []).includes(problemOf(event).code),
    },
  }).createMachine({
    id: 'codeEntry',
    context: ({ input }) => ({
      ...input,
      code: '',
      remember: false,
      error: input.error ?? null,
      result: null,
      endedWith: null,
      captchaLevel: null,
      captcha: null,
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
                  // A wrong code's error shows until the person types again.
                  TYPE: {
                    actions: assign(({ context, event }) => ({
                      code: sanitiseCodeInput(event.value).slice(0, context.length),
                      error: null,
                    })),
                  },
                  TOGGLE_REMEMBER: { actions: assign(({ context }) => ({ remember: !context.remember })) },
                  SUBMIT: [
                    { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
                    { guard: 'complete', target: 'checking', actions: assign({ captcha: captchaToken }) },
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
                    {
                      guard: 'ending',
                      target: '#codeEntry.ended',
                      actions: assign({
                        error: ({ event }) => problemOf(event),
                        endedWith: ({ event }) => failureBodyOf(event),
                      }),
                    },
                    {
                      target: 'typing',
                      actions: assign({
                        error: ({ event }) => problemOf(event),
                        captchaLevel: ({ context, event }) => captchaLevelOf(errorOf(event)) ?? context.captchaLevel,
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
          // The wait before a new code may be asked for, then the flow's.
          resend: {
            initial: 'deciding',
            states: {
              deciding: { always: [{ guard: 'resendable', target: 'cooling' }, { target: 'unavailable' }] },
              cooling: { after: { resendCooldown: 'ready' } },
              ready: { on: { RESEND: { actions: 'askForNewCode' } } },
              unavailable: {},
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

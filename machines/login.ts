// Sign-in by email or phone and password (spec §4 Login). Pure: the call is the `submitLogin`
// actor, bound to the API client by the app and to scripted answers by the tests.
import { assign, fromPromise, setup } from 'xstate';
import { isApiFailure, type ApiFailure } from '../contract/api.ts';
import { isEmail, normaliseEmail } from '../contract/rules.ts';
import type { MfaMethodSummary } from '../contract/baseSchemas.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import { errorOf, problemFromCode, type Problem, type ProblemCode } from './failures.ts';

export type LoginMode = 'email' | 'phone';
export type LoginError = Problem;

export type LoginOutput =
  | { kind: 'success' }
  | { kind: 'mfa'; payload: string; methods: MfaMethodSummary[] }
  | { kind: 'weakPassword'; payload: string }
  | { kind: 'maintenance' };

export type LoginEvent =
  | { type: 'CHANGE'; field: 'username' | 'password'; value: string }
  | { type: 'SET_MODE'; mode: LoginMode }
  /** `automatic`: the form resubmits by itself once the robot check it was refused for is solved. */
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer; automatic?: boolean };

type Context = {
  mode: LoginMode;
  username: string;
  password: string;
  error: LoginError | null;
  outcome: LoginOutput | null;
  /** After repeated failures the server wants a CAPTCHA solution with each attempt: the form shows the widget. */
  captchaNeeded: boolean;
  /** How hard a puzzle: past the account's ceiling of failures the server names a harder one. */
  captchaLevel: CaptchaLevel;
  captcha: string | null;
  /** The server refused a sign-in for want of a robot check: the form sends it again, password kept,
   * as soon as the widget has solved one. Once only: a second refusal is shown. */
  resubmitWhenSolved: boolean;
  /** The submit in flight is that automatic one. */
  automatic: boolean;
};

/** The refusals that want a solved puzzle. */
const PUZZLE_REFUSALS: readonly ProblemCode[] = ['captcha_required', 'captcha_invalid'];

const isCaptchaFailure = (error: unknown) => {
  const code = failureOf(error)?.code;
  return code !== undefined && PUZZLE_REFUSALS.includes(code);
};

function failureOf(error: unknown): ApiFailure | null {
  return isApiFailure(error) ? error : null;
}

/** The error shown for a failed sign-in, by status (spec §8); the view translates by code. */
export function loginErrorOf(error: unknown): LoginError {
  const failure = failureOf(error);
  if (!failure || failure.status === 0 || failure.status >= 500) {
    return { code: 'internal_error' };
  }
  if (failure.status === 429) {
    const wait = failure.body.retry_after;
    return typeof wait === 'number' ? { code: 'too_many_attempts', retryAfter: wait } : { code: 'too_many_attempts' };
  }
  if (failure.status === 422 || failure.code === 'validation_failed') return problemFromCode(failure.code);
  if (failure.code === 'captcha_required' || failure.code === 'captcha_invalid') return problemFromCode(failure.code);
  return failure.body.last_attempt === true
    ? { code: 'invalid_credentials', lastAttempt: true }
    : { code: 'invalid_credentials' };
}

function mfaOutcome(error: unknown): LoginOutput {
  const mfa = (failureOf(error)?.body.mfa ?? {}) as { payload?: string; methods?: MfaMethodSummary[] };
  return { kind: 'mfa', payload: mfa.payload ?? '', methods: mfa.methods ?? [] };
}

function weakOutcome(error: unknown): LoginOutput {
  const payload = failureOf(error)?.body.payload;
  return { kind: 'weakPassword', payload: typeof payload === 'string' ? payload : '' };
}

export const loginMachine = setup({
  types: {
    context: {} as Context,
    events: {} as LoginEvent,
    /** `username`: the address the person used last in this tab (prefilled, never sent by itself). */
    input: {} as { mode: LoginMode; username?: string },
    output: {} as LoginOutput,
  },
  actors: {
    submitLogin: fromPromise<unknown, { username: string; password: string; captcha: string | null }>(async () => {
      throw new Error('submitLogin is provided by the app');
    }),
  },
  actions: {
    /** The address typed, for the app to keep (provided by the app; nothing here). */
    typed: (_, _params: { value: string }) => {},
  },
  guards: {
    canSubmit: ({ context }) => context.username.trim() !== '' && context.password !== '',
    malformedEmail: ({ context }) =>
      context.mode === 'email' && context.username.trim() !== '' && !isEmail(normaliseEmail(context.username)),
    needsMfa: ({ event }) => failureOf(errorOf(event))?.code === 'mfa_required',
    weakPassword: ({ event }) => failureOf(errorOf(event))?.code === 'weak_password',
    inMaintenance: ({ event }) => failureOf(errorOf(event))?.status === 503,
    captchaRefused: ({ context, event }) => context.captchaNeeded && captchaRefused({ event }),
    firstCaptchaRefusal: ({ context, event }) => !context.automatic && isCaptchaFailure(errorOf(event)),
  },
}).createMachine({
  id: 'login',
  context: ({ input }) => ({
    mode: input.mode,
    username: input.username ?? '',
    password: '',
    error: null,
    outcome: null,
    captchaNeeded: false,
    captchaLevel: 0,
    captcha: null,
    resubmitWhenSolved: false,
    automatic: false,
  }),
  initial: 'editing',
  states: {
    editing: {
      on: {
        // An error stays until the user types again.
        CHANGE: [
          // The address carries to the forgotten password and back: the app tells the root.
          {
            guard: ({ event }) => event.field === 'username',
            actions: [
              assign(({ event }) => ({ username: event.value, error: null })),
              { type: 'typed', params: ({ event }) => ({ value: event.value }) },
            ],
          },
          { actions: assign(({ event }) => ({ [event.field]: event.value, error: null })) },
        ],
        // (Typing does not cancel a resubmit the person is waiting for: it sends what is typed then.)
        // Another way of signing in starts empty; the same one (a route within it) keeps what is typed.
        SET_MODE: {
          actions: assign(({ context, event }) =>
            event.mode === context.mode ? {} : { mode: event.mode, username: '', error: null },
          ),
        },
        SUBMIT: [
          // A malformed address is said before anything is sent (the server would only say "invalid").
          { guard: 'malformedEmail', actions: assign({ error: { code: 'invalid_email' } }) },
          { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
          {
            guard: 'canSubmit',
            target: 'submitting',
            actions: assign({
              captcha: captchaToken,
              automatic: ({ event }) => event.automatic === true,
              resubmitWhenSolved: false,
            }),
          },
        ],
      },
    },
    submitting: {
      invoke: {
        id: 'submitLogin',
        src: 'submitLogin',
        input: ({ context }) => ({
          username: context.username.trim(),
          password: context.password,
          captcha: context.captchaNeeded ? context.captcha : null,
        }),
        onDone: { target: 'done', actions: assign({ outcome: { kind: 'success' } }) },
        onError: [
          { guard: 'needsMfa', target: 'done', actions: assign({ outcome: ({ event }) => mfaOutcome(event.error) }) },
          {
            guard: 'weakPassword',
            target: 'done',
            actions: assign({ outcome: ({ event }) => weakOutcome(event.error) }),
          },
          { guard: 'inMaintenance', target: 'done', actions: assign({ outcome: { kind: 'maintenance' } }) },
          {
            // Refused for want of a robot check, the first time: nothing to correct, so nothing to
            // say; the password stays and the form goes again once the widget has solved one.
            guard: 'firstCaptchaRefusal',
            target: 'editing',
            actions: assign({
              captchaNeeded: true,
              resubmitWhenSolved: true,
              error: null,
              captchaLevel: nextCaptchaLevel,
            }),
          },
          {
            target: 'editing',
            actions: assign(({ context, event }) => ({
              error: loginErrorOf(event.error),
              // A wrong password goes; one refused for the robot check stays to be sent again.
              password: isCaptchaFailure(event.error) ? context.password : '',
              captchaNeeded:
                context.captchaNeeded || failureOf(event.error)?.body.captcha === true || isCaptchaFailure(event.error),
              captchaLevel: nextCaptchaLevel({ context, event }),
            })),
          },
        ],
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.outcome!,
});

// Sign-in by email or phone and password (spec §4 Login), or by a passkey: by its button (the
// browser's own dialog) or from the username field's suggestions (a conditional request, kept by the
// `passkeyAutofill` actor while the form is open: leaving the form aborts it, coming back starts a
// new one with a new challenge). A passkey that verified its user is both factors: no password, no
// code. Pure: the calls are actors, bound to the API client by the app and to scripted answers by
// the tests.
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { isApiFailure, type ApiFailure } from '../contract/api.ts';
import { isEmail, normaliseEmail } from '../contract/rules.ts';
import type { MfaMethodSummary } from '../contract/baseSchemas.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import type { PasskeyCredential } from '../contract/schemas.ts';
import { errorOf, passkeyProblemOf, problemFromCode, type Problem, type ProblemCode } from './failures.ts';

export type LoginMode = 'email' | 'phone';
export type LoginError = Problem;

export type LoginOutput =
  /** `by`: what proved the account (a password sign-in may be followed by a passkey's offer). */
  | { kind: 'success'; by: 'password' | 'passkey' }
  | { kind: 'mfa'; payload: string; methods: MfaMethodSummary[] }
  | { kind: 'weakPassword'; payload: string }
  | { kind: 'maintenance' };

export type LoginEvent =
  | { type: 'CHANGE'; field: 'username' | 'password'; value: string }
  | { type: 'SET_MODE'; mode: LoginMode }
  /** `automatic`: the form resubmits by itself once the robot check it was refused for is solved. */
  | { type: 'SUBMIT'; captcha?: CaptchaAnswer; automatic?: boolean }
  /** From the suggestions' actor: whether this browser signs in with a passkey here (the button). */
  | { type: 'PASSKEY_SUPPORT'; signIn: boolean }
  /** A passkey picked in the username field's suggestions, signed. */
  | { type: 'PASSKEY_PICKED'; answer: PasskeyAnswer }
  /** The passkey button. */
  | { type: 'PASSKEY' };

/** A passkey's signed answer, with the relying party it was for. */
export type PasskeyAnswer = { credential: PasskeyCredential; rpId: string };

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
  /** This browser signs in with a passkey here: the button shows. */
  passkeyButton: boolean;
  /** The passkey answer on its way to the server. */
  passkey: PasskeyAnswer | null;
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
    /** While the form is open: says whether passkeys sign in here (PASSKEY_SUPPORT), then offers them
     * in the username field's suggestions, renewing the challenge before it expires; a pick comes
     * back as PASSKEY_PICKED. Stopped, it aborts the browser's request. (Nothing here: the app's.) */
    passkeyAutofill: fromCallback(() => {}),
    /** The button: a challenge, then the browser's dialog. */
    askPasskey: fromPromise<PasskeyAnswer>(async () => {
      throw new Error('askPasskey is provided by the app');
    }),
    /** The signed answer to the server, which opens the session. */
    passkeySignIn: fromPromise<unknown, PasskeyAnswer>(async () => {
      throw new Error('passkeySignIn is provided by the app');
    }),
  },
  actions: {
    /** The address typed, for the app to keep (provided by the app; nothing here). */
    typed: (_, _params: { value: string }) => {},
    /** The server does not know the passkey used: the app tells the password manager. */
    signalUnknownPasskey: (_, _params: { rpId: string; credentialId: string }) => {},
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
    /** The person closed the browser's dialog: nothing to say. */
    passkeyCancelled: ({ event }) => passkeyProblemOf(event).code === 'passkey_cancelled',
    passkeyUnknown: ({ event }) => failureOf(errorOf(event))?.code === 'passkey_unknown',
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
    passkeyButton: false,
    passkey: null,
  }),
  initial: 'editing',
  states: {
    editing: {
      invoke: { id: 'passkeyAutofill', src: 'passkeyAutofill' },
      on: {
        PASSKEY_SUPPORT: { actions: assign({ passkeyButton: ({ event }) => event.signIn }) },
        PASSKEY_PICKED: {
          target: 'signingInWithPasskey',
          actions: assign({ passkey: ({ event }) => event.answer, error: null }),
        },
        PASSKEY: { guard: ({ context }) => context.passkeyButton, target: 'askingPasskey' },
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
        onDone: { target: 'done', actions: assign({ outcome: { kind: 'success', by: 'password' } }) },
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
    // The button: the browser's dialog, on a challenge of its own.
    askingPasskey: {
      entry: assign({ error: null }),
      invoke: {
        id: 'askPasskey',
        src: 'askPasskey',
        onDone: { target: 'signingInWithPasskey', actions: assign({ passkey: ({ event }) => event.output }) },
        onError: [
          { guard: 'passkeyCancelled', target: 'editing' },
          { target: 'editing', actions: assign({ error: ({ event }) => passkeyProblemOf(event) }) },
        ],
      },
    },
    signingInWithPasskey: {
      invoke: {
        id: 'passkeySignIn',
        src: 'passkeySignIn',
        input: ({ context }) => context.passkey!,
        onDone: { target: 'done', actions: assign({ outcome: { kind: 'success', by: 'passkey' } }) },
        onError: [
          { guard: 'inMaintenance', target: 'done', actions: assign({ outcome: { kind: 'maintenance' } }) },
          {
            // Deleted here, still kept by the password manager: it is told, and stops suggesting it.
            guard: 'passkeyUnknown',
            target: 'editing',
            actions: [
              {
                type: 'signalUnknownPasskey',
                params: ({ context }) => ({
                  rpId: context.passkey!.rpId,
                  credentialId: context.passkey!.credential.id,
                }),
              },
              assign({ error: { code: 'passkey_unknown' } }),
            ],
          },
          { target: 'editing', actions: assign({ error: ({ event }) => loginErrorOf(event.error) }) },
        ],
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.outcome!,
});

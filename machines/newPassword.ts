// Choosing a new password against the live checklist of the configured policy, confirming it, and
// the server — which checks everything again — takes it. Renewing a weak password (spec §4 Login:
// password_status 1 or 2), a forgotten one, the first one of a new account, and a change while signed
// in (machines/editPassword.ts) all go this way.
//
// A change checks the current password typed with it, and past the account's ceiling of wrong
// passwords the server wants a solved puzzle with each try (the refusal names its level): from then
// on the form shows the widget at that level and each SUBMIT carries its answer, which the call
// sends along (the X-Captcha header), as the shared code entry does with a code.
import { assign, fromPromise, setup, type ActorRef, type Snapshot } from 'xstate';
import { passwordProblems, type PasswordPolicy, type PasswordProblem } from '../contract/password.ts';
import { captchaProblem, captchaRefused, captchaToken, nextCaptchaLevel } from './captchaAnswer.ts';
import type { CaptchaAnswer, CaptchaLevel } from './captchaAnswer.ts';
import { problemOf, type Problem } from './failures.ts';

type Context<TResult, TPayload> = {
  /** What goes with the password to the server: a ticket, or (a change) the current password. */
  payload: TPayload;
  policy: PasswordPolicy;
  password: string;
  confirmation: string;
  /** The rule a refused submit broke first: the spec's failure message shows for it. */
  refused: PasswordProblem | null;
  error: Problem | null;
  result: TResult | null;
  /** The puzzle the server wants with each try (null: none). */
  captchaLevel: CaptchaLevel | null;
};

/** What the form reads from and sends to the machine, whatever the flow's result and payload. */
export type NewPasswordRef = ActorRef<
  Snapshot<unknown> & {
    context: Omit<Context<unknown, unknown>, 'payload' | 'result'>;
    matches(state: 'saving'): boolean;
  },
  { type: 'CHANGE'; field: 'password' | 'confirmation'; value: string } | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
>;

/** The new-password machine of a flow whose server call answers `TResult` (a new account's outcome
 * for onboarding, nothing for a reset): the flow reads it, typed, from the machine's output. The
 * payload is a ticket, or what a flow gives with `PAYLOAD` before it submits. */
export const newPasswordMachineOf = <TResult, TPayload = string>() =>
  setup({
    types: {
      context: {} as Context<TResult, TPayload>,
      input: {} as { payload: TPayload; policy: PasswordPolicy },
      events: {} as
        | { type: 'CHANGE'; field: 'password' | 'confirmation'; value: string }
        /** `captcha`: the widget's answer, once the server wants one. */
        | { type: 'SUBMIT'; captcha?: CaptchaAnswer }
        | { type: 'PAYLOAD'; payload: TPayload },
      /** What the server answered the new password, for the flow that asked. */
      output: {} as { result: TResult },
    },
    actors: {
      resetPassword: fromPromise<
        TResult,
        { payload: TPayload; password: string; confirmation: string; captcha: string | null }
      >(async () => {
        throw new Error('resetPassword is provided by the app');
      }),
    },
    guards: {
      acceptable: ({ context }) =>
        passwordProblems(context.password, context.policy, context.confirmation).length === 0,
      /** A password to send, but the puzzle the server wants is not solved (yet). */
      captchaRefused: ({ context, event }) =>
        context.captchaLevel !== null &&
        captchaRefused({ event }) &&
        passwordProblems(context.password, context.policy, context.confirmation).length === 0,
    },
  }).createMachine({
    id: 'newPassword',
    context: ({ input }) => ({
      payload: input.payload,
      policy: input.policy,
      password: '',
      confirmation: '',
      refused: null,
      error: null,
      result: null,
      captchaLevel: null,
    }),
    initial: 'editing',
    states: {
      editing: {
        on: {
          CHANGE: { actions: assign(({ event }) => ({ [event.field]: event.value, error: null, refused: null })) },
          PAYLOAD: { actions: assign({ payload: ({ event }) => event.payload, error: null }) },
          SUBMIT: [
            { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
            { guard: 'acceptable', target: 'saving' },
            // Nothing is sent; the first broken rule says why.
            {
              actions: assign({
                refused: ({ context }) =>
                  passwordProblems(context.password, context.policy, context.confirmation)[0] ?? null,
              }),
            },
          ],
        },
      },
      saving: {
        invoke: {
          id: 'resetPassword',
          src: 'resetPassword',
          input: ({ context, event }) => ({
            payload: context.payload,
            password: context.password,
            confirmation: context.confirmation,
            captcha: captchaToken({ event }),
          }),
          onDone: { target: 'renewed', actions: assign({ result: ({ event }) => event.output }) },
          onError: {
            target: 'editing',
            actions: assign({
              error: ({ event }) => problemOf(event),
              captchaLevel: nextCaptchaLevel,
            }),
          },
        },
      },
      renewed: { type: 'final' },
    },
    output: ({ context }) => ({ result: context.result as TResult }),
  });

/** For a flow that only needs to know the password was taken (a weak password renewed). */
export const newPasswordMachine = newPasswordMachineOf<unknown>();

// Forgotten username (spec §2 forgot-username): by card number or national register number; the
// response lists the usernames (masked) or says none was found. The browser checks the number's
// form to guide; the server checks it again. Back from the response asks again; Forward shows the
// response once more, while the flow still holds it.
import { assign, fromPromise, setup } from 'xstate';
import { isNationalRegisterNumber } from '../contract/nationalRegister.ts';
import { isCardNumber } from '../contract/rules.ts';
import { captchaProblem, captchaRefused, captchaToken, type CaptchaAnswer } from './captchaAnswer.ts';
import { problemOf, type Problem } from './failures.ts';

export type UsernameKind = 'card' | 'nationalRegister';
type Context = {
  kind: UsernameKind;
  value: string;
  usernames: string[] | null;
  error: Problem | null;
  captcha: string | null;
};

export const forgotUsernameMachine = setup({
  types: {
    context: {} as Context,
    events: {} as
      | { type: 'SET_KIND'; kind: UsernameKind }
      | { type: 'CHANGE'; value: string }
      | { type: 'SUBMIT'; captcha: CaptchaAnswer }
      | { type: 'AGAIN' }
      /** The location moved to one of the flow's steps (Back, Forward, a link). */
      | { type: 'ROUTE'; step: 'ask' | 'response' },
  },
  actors: {
    findUsernames: fromPromise<string[], { kind: UsernameKind; value: string; captcha: string | null }>(async () => {
      throw new Error('findUsernames is provided by the app');
    }),
  },
  actions: {
    show: (_, _params: { screen: 'ask' | 'response' }) => {},
  },
  guards: {
    captchaRefused,
    routeToAsk: ({ event }) => event.type === 'ROUTE' && event.step === 'ask',
    /** Forward to the answer, while the flow holds it. */
    routeToAnswer: ({ context, event }) =>
      event.type === 'ROUTE' && event.step === 'response' && context.usernames !== null,
    wellFormed: ({ context }) =>
      context.kind === 'card' ? isCardNumber(context.value) : isNationalRegisterNumber(context.value),
  },
}).createMachine({
  id: 'forgotUsername',
  context: { kind: 'card', value: '', usernames: null, error: null, captcha: null },
  initial: 'asking',
  states: {
    asking: {
      entry: { type: 'show', params: { screen: 'ask' } },
      on: {
        ROUTE: [
          { guard: 'routeToAnswer', target: 'answered' },
          { actions: { type: 'show', params: { screen: 'ask' } } },
        ],
        SET_KIND: { actions: assign(({ event }) => ({ kind: event.kind, value: '', error: null })) },
        CHANGE: { actions: assign(({ event }) => ({ value: event.value, error: null })) },
        SUBMIT: [
          { guard: 'captchaRefused', actions: assign({ error: captchaProblem }) },
          { guard: 'wellFormed', target: 'searching', actions: assign({ captcha: captchaToken }) },
          {
            actions: assign(({ context }) => ({
              // Nothing typed asks for it; something typed that is not one says so.
              error: {
                code: `${context.value.trim() === '' ? 'required' : 'invalid'}_${
                  context.kind === 'card' ? 'card_number' : 'national_register_number'
                }` as const,
              },
            })),
          },
        ],
      },
    },
    searching: {
      invoke: {
        id: 'findUsernames',
        src: 'findUsernames',
        input: ({ context }) => ({ kind: context.kind, value: context.value, captcha: context.captcha }),
        onDone: { target: 'answered', actions: assign({ usernames: ({ event }) => event.output }) },
        onError: { target: 'asking', actions: assign({ error: ({ event }) => problemOf(event) }) },
      },
    },
    answered: {
      entry: { type: 'show', params: { screen: 'response' } },
      on: {
        AGAIN: { target: 'asking', actions: assign({ value: '', usernames: null }) },
        ROUTE: [
          { guard: 'routeToAsk', target: 'asking' },
          { actions: { type: 'show', params: { screen: 'response' } } },
        ],
      },
    },
  },
});

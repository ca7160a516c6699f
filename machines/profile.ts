// The profile (spec §2 `/profile`): the overview of personal, contact and banking information, the
// personal information's form (edit-info) and the bank account's (on edit-credentials, a sensitive
// screen: the root proves a recent second factor before it starts this flow there).
// - edit-info is reachable only from the overview: opened cold (a deep link, a reload) the flow
//   shows the overview instead (DESIGN.md, "Back and reload").
// - A form is checked here with the rules the server enforces (contract/profile.ts, contract/iban.ts)
//   before it is sent; the server's answer is the profile as it now is, which the flow tells the
//   root (USER_UPDATED) so that the rest of the app shows it at once.
// - Back from a form is the overview: its ROUTE, which the root forwards, leaves the form.
import { assign, fromPromise, sendParent, setup } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import { ibanFor } from '../contract/iban.ts';
import { birthdateProblem, nameProblem, type Gender, type IbanCountry } from '../contract/profile.ts';
import type { Locale } from '../contract/constants.ts';
import type { UserProfile } from '../contract/schemas.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';
import type { StepOf } from './routes.ts';

export type ProfileStep = StepOf<'profile'>;

export type InfoForm = { firstname: string; lastname: string; birthdate: string; gender: Gender | ''; language: Locale };
export type BankForm = { country: IbanCountry | ''; iban: string };
type InfoField = keyof InfoForm;

/** What the overview says after a change. */
export type ProfileNotice = 'infoSaved' | 'ibanSaved' | null;

export type ProfileInput = {
  step: ProfileStep;
  user: UserProfile;
  /** The day it is (YYYY-MM-DD): no birth date after it. */
  today: string;
};

type Context = {
  /** The step the flow was started at. */
  start: ProfileStep;
  user: UserProfile;
  today: string;
  info: InfoForm;
  bank: BankForm;
  /** Each field's problem, by the code contract/profile.ts or the server names. */
  fieldErrors: Partial<Record<InfoField | 'iban', string>>;
  /** A failure of the whole form (its stable code; the screen words it). */
  error: ProblemCode | null;
  notice: ProfileNotice;
};

const infoOf = (user: UserProfile): InfoForm => ({
  firstname: user.firstname, lastname: user.lastname, birthdate: user.birthdate ?? '',
  gender: (user.gender as Gender | null) ?? '', language: user.language as Locale,
});

const bankOf = (user: UserProfile): BankForm => ({ country: (user.banking?.country as IbanCountry | undefined) ?? '', iban: '' });

/** The problems of the personal information, as the server would name them. */
function infoProblems(info: InfoForm, today: string): Context['fieldErrors'] {
  const problems: Context['fieldErrors'] = {};
  for (const field of ['firstname', 'lastname'] as const) {
    const problem = nameProblem(info[field]);
    if (problem) problems[field] = problem;
  }
  const date = info.birthdate.trim() ? birthdateProblem(info.birthdate.trim(), today) : null;
  if (date) problems.birthdate = date;
  return problems;
}

/** The fields a 400 validation_failed names. */
function serverFieldErrors(event: object): Context['fieldErrors'] {
  const error = errorOf(event);
  const fields = isApiFailure(error) ? (error.body as { fields?: { field: string; code: string }[] }).fields : undefined;
  return Object.fromEntries((fields ?? []).map((f) => [f.field, f.code]));
}

const profileSetup = setup({
  types: {
    context: {} as Context,
    input: {} as ProfileInput,
    events: {} as
      | { type: 'ROUTE'; step: ProfileStep }
      | { type: 'EDIT_INFO' }
      | { type: 'CHANGE_INFO'; field: InfoField; value: string }
      | { type: 'CHANGE_BANK'; field: keyof BankForm; value: string }
      | { type: 'SUBMIT' }
      | { type: 'CANCEL' }
      | { type: 'DISMISS' },
  },
  actors: {
    saveInfo: fromPromise<UserProfile, InfoForm>(async () => { throw new Error('saveInfo is provided by the app'); }),
    saveIban: fromPromise<UserProfile, { country: IbanCountry; iban: string }>(async () => { throw new Error('saveIban is provided by the app'); }),
  },
  actions: {
    /** Asks for the path of a step (the app replaces the current entry with it). */
    show: (_, _params: { step: ProfileStep }) => {},
    /** The profile changed: the rest of the app shows the new one (the root keeps it). */
    changed: sendParent((_, { user }: { user: UserProfile }) => ({ type: 'USER_UPDATED', user })),
    clearMessages: assign({ fieldErrors: {}, error: null, notice: null }),
    /** What the overview says next (after a change, or nothing after a cancel). */
    noticeIs: assign((_, { notice }: { notice: ProfileNotice }) => ({ notice, fieldErrors: {}, error: null })),
    /** The profile as the server now has it, from a change's answer. */
    keepProfile: assign((_, { user }: { user: UserProfile }) => ({ user })),
  },
  guards: {
    startsAt: ({ context }, { step }: { step: ProfileStep }) => context.start === step,
    routeTo: ({ event }, { step }: { step: ProfileStep }) => event.type === 'ROUTE' && event.step === step,
    infoValid: ({ context }) => Object.keys(infoProblems(context.info, context.today)).length === 0,
    ibanValid: ({ context }) => context.bank.country !== '' && ibanFor(context.bank.country, context.bank.iban) !== null,
    fieldsRefused: ({ event }) => Object.keys(serverFieldErrors(event)).length > 0,
    ibanRefused: ({ event }) => { const error = errorOf(event); return isApiFailure(error) && error.code === 'iban_invalid'; },
  },
});

/** Back to the overview, saying what happened. */
const toOverview = (notice: ProfileNotice) => [
  { type: 'noticeIs', params: { notice } },
  { type: 'show', params: { step: 'overview' } },
] as const;

export const profileMachine = profileSetup.createMachine({
  id: 'profile',
  context: ({ input }) => ({
    start: input.step, user: input.user, today: input.today, info: infoOf(input.user), bank: bankOf(input.user), fieldErrors: {}, error: null, notice: null,
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: { type: 'startsAt', params: { step: 'credentials' } }, target: 'credentials' },
        // edit-info opened cold: the overview, in its place (it is reached from there only).
        { guard: { type: 'startsAt', params: { step: 'editInfo' } }, target: 'overview', actions: { type: 'show', params: { step: 'overview' } } },
        { target: 'overview' },
      ],
    },
    overview: {
      on: {
        EDIT_INFO: { target: 'editingInfo', actions: { type: 'show', params: { step: 'editInfo' } } },
        // Arriving at edit-info by its link from here (or Forward) opens the form.
        ROUTE: { guard: { type: 'routeTo', params: { step: 'editInfo' } }, target: 'editingInfo' },
        DISMISS: { actions: 'clearMessages' },
      },
    },
    editingInfo: {
      entry: [assign({ info: ({ context }) => infoOf(context.user) }), 'clearMessages'],
      on: {
        ROUTE: { guard: { type: 'routeTo', params: { step: 'overview' } }, target: 'overview' },
        CANCEL: { target: 'overview', actions: toOverview(null) },
      },
      initial: 'form',
      states: {
        form: {
          on: {
            CHANGE_INFO: {
              actions: assign({
                info: ({ context, event }) => ({ ...context.info, [event.field]: event.value }),
                fieldErrors: ({ context, event }) => ({ ...context.fieldErrors, [event.field]: undefined }),
                error: null,
              }),
            },
            SUBMIT: [
              { guard: 'infoValid', target: 'saving' },
              { actions: assign({ fieldErrors: ({ context }) => infoProblems(context.info, context.today) }) },
            ],
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            id: 'saveInfo',
            src: 'saveInfo',
            input: ({ context }) => context.info,
            onDone: {
              target: '#profile.overview',
              actions: [{ type: 'keepProfile', params: ({ event }) => ({ user: event.output }) }, { type: 'changed', params: ({ event }) => ({ user: event.output }) }, ...toOverview('infoSaved')],
            },
            onError: [
              { guard: 'fieldsRefused', target: 'form', actions: assign({ fieldErrors: ({ event }) => serverFieldErrors(event) }) },
              { target: 'form', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
      },
    },
    credentials: {
      on: {
        ROUTE: { guard: { type: 'routeTo', params: { step: 'overview' } }, target: 'overview' },
        CANCEL: { target: 'overview', actions: toOverview(null) },
      },
      initial: 'form',
      states: {
        form: {
          on: {
            CHANGE_BANK: {
              actions: assign({
                bank: ({ context, event }) => ({ ...context.bank, [event.field]: event.value }),
                fieldErrors: {}, error: null,
              }),
            },
            SUBMIT: [
              { guard: 'ibanValid', target: 'saving' },
              { actions: assign({ fieldErrors: { iban: 'iban_invalid' } }) },
            ],
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            id: 'saveIban',
            src: 'saveIban',
            input: ({ context }) => ({ country: context.bank.country as IbanCountry, iban: context.bank.iban }),
            onDone: {
              target: '#profile.overview',
              actions: [{ type: 'keepProfile', params: ({ event }) => ({ user: event.output }) }, { type: 'changed', params: ({ event }) => ({ user: event.output }) }, ...toOverview('ibanSaved')],
            },
            onError: [
              { guard: 'ibanRefused', target: 'form', actions: assign({ fieldErrors: { iban: 'iban_invalid' } }) },
              { target: 'form', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
      },
    },
  },
});

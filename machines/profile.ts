// The profile (spec §2 `/profile`): the overview of personal, contact and banking information, the
// personal information's form (edit-info), the emails and phone numbers (edit-credentials) and the
// bank account's form (edit-bank): the last two are sensitive screens, the root proves a recent
// second factor before it starts this flow there.
// - edit-info is reachable only from the overview: opened cold (a deep link, a reload) the flow
//   shows the overview instead (docs/decisions/back-and-reload.md).
// - A form is checked here with the rules the server enforces (contract/profile.ts, contract/iban.ts)
//   before it is sent (an IBAN names its country: the form's follows it until the person picks
//   one); the server's answer is the profile as it now is, which the flow tells the root
//   (USER_UPDATED) so that the rest of the app shows it at once.
// - Back from a form is the overview: its ROUTE, which the root forwards, leaves the form.
import { assertEvent, assign, fromPromise, sendParent, setup, type DoneActorEvent } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import { checkIban, ibanCountryOf } from '../contract/iban.ts';
import { birthdateProblem, nameProblem, type Gender, type IbanCountry } from '../contract/profile.ts';
import type { Locale } from '../contract/constants.ts';
import { SENT_CODE_LENGTH } from '../contract/rules.ts';
import type { UserProfile } from '../contract/schemas.ts';
import type { AddContactAnswer } from '../contract/profile.ts';
import type { FuzzionOffer } from '../contract/fuzzion.ts';
import { codeEntryMachineOf, sentCodeOf, type CodeEntryOutput, type CodeSent, type SentCode } from './codeEntry.ts';
import { errorOf, fuzzionOfferOf, problemCodeOf, type ProblemCode } from './failures.ts';
import type { StepOf } from './routes.ts';

export type ProfileStep = StepOf<'profile'>;

export type InfoForm = {
  firstname: string;
  lastname: string;
  birthdate: string;
  gender: Gender | '';
  language: Locale;
};
export type BankForm = { country: IbanCountry | ''; iban: string };
type InfoField = keyof InfoForm;

export type ContactKind = 'email' | 'phone';
export type PhoneChannel = 'sms' | 'call' | 'whatsapp';
/** An address or number of the account, as the server names it. */
export type ContactRef = { kind: ContactKind; value: string };
/** A new address or number, as typed, with the way its code goes (a phone's). */
export type NewContact = { kind: ContactKind; value: string; channel: PhoneChannel };

/** The choice an address or number another account holds leaves, once its code came back: merge
 * (the merge's screen), take it off the other account where that account keeps an email and a
 * phone (the merge's screen, which proves that account first), or type another one. */
export type MergeChoice = { payload: string; target: string; canDecline: boolean; ssoOnly: boolean };

/** What the overview or the contacts say after a change. */
export type ProfileNotice =
  | 'infoSaved'
  | 'ibanSaved'
  | 'contactAdded'
  | 'contactDeleted'
  | 'primarySwitched'
  | 'downloaded'
  | 'pictureSaved'
  | 'pictureRemoved'
  | null;

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
  /** The person picked the bank form's country: it no longer follows the IBAN typed. */
  countryChosen: boolean;
  /** Each field's problem, by the code contract/profile.ts or the server names; the bank form's by
   * the failure's code. */
  fieldErrors: Partial<Record<InfoField, string>> & {
    iban?: 'iban_invalid' | 'iban_country_mismatch';
    bank?: ProblemCode;
  };
  /** A failure of the whole form (its stable code; the screen words it). */
  error: ProblemCode | null;
  notice: ProfileNotice;
  /** The address or number being added, and its code once sent. */
  newContact: NewContact;
  challenge: { payload: string; sent: SentCode } | null;
  /** The address or number is another account's, proven by its code: the choice it leaves. */
  offer: MergeChoice | null;
  /** The contact a deletion or a primary switch is about. */
  pending: ContactRef | null;
};

const infoOf = (user: UserProfile): InfoForm => ({
  firstname: user.firstname,
  lastname: user.lastname,
  birthdate: user.birthdate ?? '',
  gender: (user.gender as Gender | null) ?? '',
  language: user.language as Locale,
});

const bankOf = (user: UserProfile): BankForm => ({
  country: (user.banking?.country as IbanCountry | undefined) ?? '',
  iban: '',
});

/** The bank form after a change: the country follows the IBAN's first two letters until the person
 * picks one (then a differing IBAN is said as such on saving). */
function bankChanged(context: Context, field: keyof BankForm, value: string): BankForm {
  if (field === 'country') return { ...context.bank, country: value as IbanCountry | '' };
  const named = context.countryChosen ? null : ibanCountryOf(value);
  return { ...context.bank, iban: value, country: named ?? context.bank.country };
}

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
function serverFieldErrors(event: object): Partial<Record<InfoField, string>> {
  const error = errorOf(event);
  const fields = isApiFailure(error)
    ? (error.body as { fields?: { field: string; code: string }[] }).fields
    : undefined;
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
      | { type: 'DISMISS' }
      | { type: 'ADD_CONTACT'; kind: ContactKind }
      | { type: 'CHANGE_NEW'; value: string }
      | { type: 'SET_CHANNEL'; channel: PhoneChannel }
      | { type: 'SEND_CODE' }
      /** From the code entry, once it sent a new code. */
      | CodeSent
      | { type: 'BACK' }
      /** The offer's choices (MergeChoice). */
      | { type: 'MERGE' }
      | { type: 'DECLINE' }
      | { type: 'USE_ANOTHER' }
      | { type: 'DELETE_CONTACT'; contact: ContactRef }
      | { type: 'MAKE_PRIMARY'; contact: ContactRef }
      | { type: 'CONFIRM' }
      | { type: 'KEEP' }
      | { type: 'DOWNLOAD' }
      | { type: 'PICTURE_CHOSEN'; file: Blob }
      | { type: 'REMOVE_PICTURE' }
      /** The end of the new contact's code, which the guards read. */
      | DoneActorEvent<CodeEntryOutput<UserProfile>, 'contactCode'>
      | DoneActorEvent<FuzzionOffer, 'readOffer'>
      | DoneActorEvent<void, 'cancelOffer'>,
  },
  actors: {
    /** Shrinks the picture in the browser and sends it; the answer is the profile with it. */
    uploadPicture: fromPromise<UserProfile, { file: Blob }>(async () => {
      throw new Error('uploadPicture is provided by the app');
    }),
    removePicture: fromPromise<UserProfile>(async () => {
      throw new Error('removePicture is provided by the app');
    }),
    /** The account's data as the server gives it for download (a file's name and its text). */
    exportData: fromPromise<{ name: string; text: string }>(async () => {
      throw new Error('exportData is provided by the app');
    }),
    startContact: fromPromise<AddContactAnswer, NewContact>(async () => {
      throw new Error('startContact is provided by the app');
    }),
    contactCode: codeEntryMachineOf<UserProfile, NewContact>(),
    /** What the offer allows (POST /fuzzion/offer): whether the address can leave the other account. */
    readOffer: fromPromise<FuzzionOffer, { payload: string }>(async () => {
      throw new Error('readOffer is provided by the app');
    }),
    /** POST /fuzzion/cancel: another address instead; the offer is spent, the session out of the merge. */
    cancelOffer: fromPromise<void>(async () => {
      throw new Error('cancelOffer is provided by the app');
    }),
    deleteContact: fromPromise<UserProfile, ContactRef>(async () => {
      throw new Error('deleteContact is provided by the app');
    }),
    makePrimary: fromPromise<UserProfile, ContactRef>(async () => {
      throw new Error('makePrimary is provided by the app');
    }),
    saveInfo: fromPromise<UserProfile, InfoForm>(async () => {
      throw new Error('saveInfo is provided by the app');
    }),
    saveIban: fromPromise<UserProfile, { country?: IbanCountry; iban: string }>(async () => {
      throw new Error('saveIban is provided by the app');
    }),
  },
  actions: {
    /** Asks for the path of a step (the app replaces the current entry with it). */
    show: (_, _params: { step: ProfileStep }) => {},
    /** Goes to the merge with this offer (the app keeps it for the merge's screen): the code sent to
     * the address came back, and the address is another account's. */
    offerFuzzion: (_, _params: { payload: string }) => {},
    /** Hands a file to the browser to save. */
    save: (_, _params: { name: string; text: string }) => {},
    /** The profile changed: the rest of the app shows the new one (the root keeps it). */
    changed: sendParent((_, { user }: { user: UserProfile }) => ({ type: 'USER_UPDATED', user })),
    clearMessages: assign({ fieldErrors: {}, error: null, notice: null }),
    forgetOffer: assign({ offer: null }),
    /** What the overview says next (after a change, or nothing after a cancel). */
    noticeIs: assign((_, { notice }: { notice: ProfileNotice }) => ({ notice, fieldErrors: {}, error: null })),
    /** The profile as the server now has it, from a change's answer. */
    keepProfile: assign((_, { user }: { user: UserProfile }) => ({ user })),
  },
  guards: {
    startsAt: ({ context }, { step }: { step: ProfileStep }) => context.start === step,
    routeTo: ({ event }, { step }: { step: ProfileStep }) => event.type === 'ROUTE' && event.step === step,
    infoValid: ({ context }) => Object.keys(infoProblems(context.info, context.today)).length === 0,
    ibanValid: ({ context }) => checkIban(context.bank.country, context.bank.iban).ok,
    fieldsRefused: ({ event }) => Object.keys(serverFieldErrors(event)).length > 0,
    ibanRefused: ({ event }) => {
      const error = errorOf(event);
      return isApiFailure(error) && (error.code === 'iban_invalid' || error.code === 'iban_country_mismatch');
    },
    /** A contact the account has (the list may have changed since the button was drawn). */
    listed: ({ context, event }) =>
      'contact' in event && context.user[event.contact.kind].some((c) => c.value === event.contact.value),
    typedSomething: ({ context }) => context.newContact.value.trim() !== '',
    codeChecked: ({ event }) => event.type === 'xstate.done.actor.contactCode' && event.output.result !== null,
    /** The code came back and the address is another account's: the answer carries the offer. */
    fuzzionOffered: ({ event }) =>
      event.type === 'xstate.done.actor.contactCode' && fuzzionOfferOf(event.output) !== null,
    /** The other account can be merged from here (not one that signs in with Microsoft only). */
    canMerge: ({ context }) => !!context.offer && !context.offer.ssoOnly,
    canDecline: ({ context }) => !!context.offer?.canDecline,
  },
});

/** The server took a change: the profile it answers is kept, and the rest of the app told. */
const took = [
  { type: 'keepProfile', params: ({ event }: { event: { output: UserProfile } }) => ({ user: event.output }) },
  { type: 'changed', params: ({ event }: { event: { output: UserProfile } }) => ({ user: event.output }) },
] as const;

/** The merge's screen, with the offer the code brought. */
const toMerge = [
  { type: 'offerFuzzion', params: ({ context }: { context: Context }) => ({ payload: context.offer!.payload }) },
  'forgetOffer',
] as const;

/** Back to the overview, saying what happened. */
const toOverview = (notice: ProfileNotice) =>
  [
    { type: 'noticeIs', params: { notice } },
    { type: 'show', params: { step: 'overview' } },
  ] as const;

/** A screen of its own (the bank account, the contacts): the overview again, by its path or Cancel. */
const backToOverview = {
  ROUTE: { guard: { type: 'routeTo', params: { step: 'overview' } }, target: 'overview' },
  CANCEL: { target: 'overview', actions: toOverview(null) },
} as const;

/** A listed contact's change, once confirmed (deleted, made primary): the answer is the profile. */
const contactChange = (src: 'deleteContact' | 'makePrimary', notice: ProfileNotice) =>
  profileSetup.createStateConfig({
    tags: ['busy'],
    invoke: {
      id: src,
      src,
      input: ({ context }) => context.pending!,
      onDone: {
        target: 'ready',
        actions: [...took, assign({ notice, pending: null })],
      },
      onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event), pending: null }) },
    },
  });

export const profileMachine = profileSetup.createMachine({
  id: 'profile',
  context: ({ input }) => ({
    start: input.step,
    user: input.user,
    today: input.today,
    info: infoOf(input.user),
    bank: bankOf(input.user),
    countryChosen: false,
    fieldErrors: {},
    error: null,
    notice: null,
    newContact: { kind: 'email', value: '', channel: 'sms' },
    challenge: null,
    offer: null,
    pending: null,
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: { type: 'startsAt', params: { step: 'credentials' } }, target: 'credentials' },
        { guard: { type: 'startsAt', params: { step: 'bank' } }, target: 'bank' },
        { guard: { type: 'startsAt', params: { step: 'download' } }, target: 'download' },
        // edit-info opened cold: the overview, in its place (it is reached from there only).
        {
          guard: { type: 'startsAt', params: { step: 'editInfo' } },
          target: 'overview',
          actions: { type: 'show', params: { step: 'overview' } },
        },
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
      initial: 'idle',
      states: {
        idle: {
          on: {
            PICTURE_CHOSEN: { target: 'uploading', actions: 'clearMessages' },
            REMOVE_PICTURE: { target: 'removing', actions: 'clearMessages' },
          },
        },
        uploading: {
          tags: ['busy'],
          invoke: {
            id: 'uploadPicture',
            src: 'uploadPicture',
            input: ({ event }) => {
              assertEvent(event, 'PICTURE_CHOSEN');
              return { file: event.file };
            },
            onDone: {
              target: 'idle',
              actions: [...took, assign({ notice: 'pictureSaved' as const })],
            },
            onError: { target: 'idle', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
          },
        },
        removing: {
          tags: ['busy'],
          invoke: {
            id: 'removePicture',
            src: 'removePicture',
            onDone: {
              target: 'idle',
              actions: [...took, assign({ notice: 'pictureRemoved' as const })],
            },
            onError: { target: 'idle', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
          },
        },
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
              actions: [...took, ...toOverview('infoSaved')],
            },
            onError: [
              {
                guard: 'fieldsRefused',
                target: 'form',
                actions: assign({ fieldErrors: ({ event }) => serverFieldErrors(event) }),
              },
              { target: 'form', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
            ],
          },
        },
      },
    },
    // The account's data, downloaded as one file (the root proved a recent second factor first).
    download: {
      on: {
        ROUTE: { guard: { type: 'routeTo', params: { step: 'overview' } }, target: 'overview' },
        CANCEL: { target: 'overview', actions: toOverview(null) },
      },
      initial: 'ready',
      states: {
        ready: { on: { DOWNLOAD: { target: 'preparing', actions: 'clearMessages' } } },
        preparing: {
          tags: ['busy'],
          invoke: {
            id: 'exportData',
            src: 'exportData',
            onDone: {
              target: 'ready',
              actions: [
                { type: 'save', params: ({ event }) => event.output },
                assign({ notice: 'downloaded' as const }),
              ],
            },
            onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
          },
        },
      },
    },
    // The bank account: saved, it is the overview's, saying so.
    bank: {
      on: backToOverview,
      initial: 'ready',
      states: {
        ready: {
          on: {
            CHANGE_BANK: {
              actions: assign({
                bank: ({ context, event }) => bankChanged(context, event.field, event.value),
                countryChosen: ({ context, event }) => context.countryChosen || event.field === 'country',
                fieldErrors: {},
                error: null,
              }),
            },
            SUBMIT: [
              { guard: 'ibanValid', target: 'saving', actions: assign({ error: null, notice: null }) },
              {
                actions: assign({
                  fieldErrors: ({ context }) => {
                    const checked = checkIban(context.bank.country, context.bank.iban);
                    return checked.ok ? {} : { iban: checked.code };
                  },
                }),
              },
            ],
          },
        },
        saving: {
          tags: ['busy'],
          invoke: {
            id: 'saveIban',
            src: 'saveIban',
            input: ({ context }) => ({
              ...(context.bank.country ? { country: context.bank.country } : {}),
              iban: context.bank.iban,
            }),
            onDone: {
              target: '#profile.overview',
              actions: [...took, ...toOverview('ibanSaved')],
            },
            onError: [
              {
                guard: 'ibanRefused',
                target: 'ready',
                actions: assign({
                  fieldErrors: ({ event }) => ({
                    iban: problemCodeOf(event) === 'iban_country_mismatch' ? 'iban_country_mismatch' : 'iban_invalid',
                  }),
                }),
              },
              { target: 'ready', actions: assign({ fieldErrors: ({ event }) => ({ bank: problemCodeOf(event) }) }) },
            ],
          },
        },
      },
    },
    // The emails and phone numbers: each change is made from here and stays here, saying so.
    credentials: {
      on: backToOverview,
      initial: 'ready',
      states: {
        ready: {
          on: {
            ADD_CONTACT: {
              target: 'adding',
              actions: assign({
                newContact: ({ event }) => ({ kind: event.kind, value: '', channel: 'sms' as const }),
                error: null,
                notice: null,
              }),
            },
            DELETE_CONTACT: {
              guard: 'listed',
              target: 'confirmingDelete',
              actions: assign({ pending: ({ event }) => event.contact, error: null, notice: null }),
            },
            MAKE_PRIMARY: {
              guard: 'listed',
              target: 'switching',
              actions: assign({ pending: ({ event }) => event.contact, error: null, notice: null }),
            },
            DISMISS: { actions: 'clearMessages' },
          },
        },
        // A new address or number: typed, its code sent, the code typed; then it is the account's.
        adding: {
          on: { BACK: { target: 'ready', actions: assign({ challenge: null, error: null, offer: null }) } },
          initial: 'typing',
          states: {
            typing: {
              on: {
                CHANGE_NEW: {
                  actions: assign({
                    newContact: ({ context, event }) => ({ ...context.newContact, value: event.value }),
                    error: null,
                  }),
                },
                SET_CHANNEL: {
                  actions: assign({
                    newContact: ({ context, event }) => ({ ...context.newContact, channel: event.channel }),
                  }),
                },
                SEND_CODE: { guard: 'typedSomething', target: 'sending' },
              },
            },
            sending: {
              tags: ['busy'],
              invoke: {
                id: 'startContact',
                src: 'startContact',
                input: ({ context }) => context.newContact,
                onDone: {
                  target: 'code',
                  actions: assign({
                    challenge: ({ event }) => ({ payload: event.output.payload, sent: sentCodeOf(event.output.data) }),
                  }),
                },
                // Another account's address is sent its code like any other: nothing about that
                // account shows before the code comes back.
                onError: { target: 'typing', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
              },
            },
            code: {
              on: {
                CODE_SENT: {
                  actions: assign({ challenge: ({ event }) => ({ payload: event.ticket, sent: event.sent }) }),
                },
              },
              invoke: {
                id: 'contactCode',
                src: 'contactCode',
                input: ({ context }) => ({
                  ticket: context.challenge!.payload,
                  length: SENT_CODE_LENGTH,
                  sent: context.challenge!.sent,
                  endsOn: ['challenge_closed', 'code_expired', 'email_in_use', 'phone_in_use'],
                  resend: context.newContact,
                  followsDelivery: true,
                }),
                onDone: [
                  {
                    guard: 'codeChecked',
                    target: '#profile.credentials.ready',
                    actions: [
                      { type: 'keepProfile', params: ({ event }) => ({ user: event.output.result! }) },
                      { type: 'changed', params: ({ event }) => ({ user: event.output.result! }) },
                      assign({ challenge: null, notice: 'contactAdded' as const }),
                    ],
                  },
                  // The address is another account's, proven by its code: a choice, not a failure.
                  {
                    guard: 'fuzzionOffered',
                    target: 'offered',
                    actions: assign({
                      challenge: null,
                      error: null,
                      offer: ({ context, event }) => ({
                        payload: fuzzionOfferOf(event.output)!,
                        target: context.newContact.value,
                        canDecline: false,
                        ssoOnly: false,
                      }),
                    }),
                  },
                  // The code can no longer be used (expired, spent, the address taken meanwhile): type again.
                  {
                    target: 'typing',
                    actions: assign({
                      challenge: null,
                      error: ({ event }) => event.output.failure?.code ?? 'internal_error',
                    }),
                  },
                ],
              },
            },
            // Whose the address is and what can be done: merge, take it off the other account, or another.
            offered: {
              initial: 'reading',
              states: {
                reading: {
                  tags: ['busy'],
                  invoke: {
                    id: 'readOffer',
                    src: 'readOffer',
                    input: ({ context }) => ({ payload: context.offer!.payload }),
                    onDone: {
                      target: 'choosing',
                      actions: assign({
                        offer: ({ context, event }) => ({
                          payload: context.offer!.payload,
                          target: event.output.target,
                          canDecline: event.output.can_decline,
                          ssoOnly: event.output.sso_only,
                        }),
                      }),
                    },
                    // The merge's screen says what failed, if it fails again; declining is not offered.
                    onError: 'choosing',
                  },
                },
                choosing: {
                  on: {
                    MERGE: { guard: 'canMerge', target: '#profile.credentials.ready', actions: toMerge },
                    // The merge's screen proves the other account, then takes the address off it.
                    DECLINE: { guard: 'canDecline', target: '#profile.credentials.ready', actions: toMerge },
                    USE_ANOTHER: 'cancelling',
                  },
                },
                // The server gives the offer up first (else the session would stay in the merge).
                cancelling: {
                  tags: ['busy'],
                  invoke: {
                    id: 'cancelOffer',
                    src: 'cancelOffer',
                    onDone: {
                      target: '#profile.credentials.adding.typing',
                      actions: assign({
                        offer: null,
                        error: null,
                        newContact: ({ context }) => ({ ...context.newContact, value: '' }),
                      }),
                    },
                    onError: { target: 'choosing', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
                  },
                },
              },
            },
          },
        },
        confirmingDelete: {
          on: {
            CONFIRM: 'deleting',
            KEEP: { target: 'ready', actions: assign({ pending: null }) },
          },
        },
        deleting: contactChange('deleteContact', 'contactDeleted'),
        switching: contactChange('makePrimary', 'primarySwitched'),
      },
    },
  },
});

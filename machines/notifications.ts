// The notifications settings (/notifications): the marketing preferences given at onboarding (email,
// SMS, partners), changed and saved, with the success notice; and the security alerts the account
// always receives, listed for information. A list that could not load offers to try again; a
// refused save keeps the choices and says so.
import { assertEvent, assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { MarketingPreferences, NotificationsAnswer } from '../contract/schemas.ts';
import { problemCodeOf, type ProblemCode } from './failures.ts';

type Context = {
  /** What the server holds. */
  saved: NotificationsAnswer | null;
  /** The choices on the screen. */
  marketing: MarketingPreferences;
  /** The stable code of the last failure (the screen words it). */
  error: ProblemCode | null;
  notice: 'saved' | null;
};

const NONE: MarketingPreferences = { email: false, sms: false, partners: false };

export const notificationsMachine = setup({
  types: {
    context: {} as Context,
    events: {} as
      | { type: 'TOGGLE'; key: keyof MarketingPreferences; value: boolean }
      | { type: 'SAVE' }
      | { type: 'DISMISS' }
      | { type: 'RETRY' }
      | DoneActorEvent<NotificationsAnswer, 'loadNotifications'>
      | DoneActorEvent<NotificationsAnswer, 'saveNotifications'>,
  },
  actors: {
    loadNotifications: fromPromise<NotificationsAnswer>(async () => {
      throw new Error('loadNotifications is provided by the app');
    }),
    saveNotifications: fromPromise<NotificationsAnswer, { marketing: MarketingPreferences }>(async () => {
      throw new Error('saveNotifications is provided by the app');
    }),
  },
  actions: {
    keep: assign(({ event }) => {
      assertEvent(event, ['xstate.done.actor.loadNotifications', 'xstate.done.actor.saveNotifications']);
      const answer = event.output;
      return { saved: answer, marketing: answer.marketing };
    }),
  },
}).createMachine({
  id: 'notifications',
  context: { saved: null, marketing: NONE, error: null, notice: null },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'loadNotifications',
        src: 'loadNotifications',
        onDone: { target: 'ready', actions: 'keep' },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    failed: {
      on: { RETRY: { target: 'loading', actions: assign({ error: null }) } },
    },
    ready: {
      on: {
        TOGGLE: {
          actions: assign({
            marketing: ({ context, event }) => ({ ...context.marketing, [event.key]: event.value }),
            notice: null,
            error: null,
          }),
        },
        SAVE: { target: 'saving', actions: assign({ notice: null, error: null }) },
        DISMISS: { actions: assign({ notice: null, error: null }) },
      },
    },
    saving: {
      invoke: {
        id: 'saveNotifications',
        src: 'saveNotifications',
        input: ({ context }) => ({ marketing: context.marketing }),
        onDone: { target: 'ready', actions: ['keep', assign({ notice: 'saved' as const })] },
        onError: { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
  },
});

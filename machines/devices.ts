// The devices and sessions of the security overview (spec §2 /security, §3 "Session/device", §4
// Logout): the list, and what the person may do with a device. Signing a device out, every other
// one, or every session changes the account: each waits for the person's yes. Withdrawing a trust
// runs at once (the server asks for a recent second factor, and says so when there is none). After
// an action the list reloads with its notice; a refusal keeps the list and says so; a list that
// could not load offers to try again. Signing out everywhere ends this session too: the machine
// ends, and the root goes to the sign-in page.
import { assign, fromPromise, setup } from 'xstate';
import type { Device } from '../contract/schemas.ts';
import { isApiFailure } from '../contract/api.ts';
import { errorOf, problemCodeOf, type ProblemCode } from './failures.ts';

/** What the person asked for: one device signed out, every other one, everything, or a trust ended. */
export type DeviceAction =
  | { action: 'logout'; id: string }
  | { action: 'others' }
  | { action: 'everywhere' }
  | { action: 'untrust'; id: string };

export type DevicesNotice = 'loggedOut' | 'loggedOutOthers' | 'untrusted' | null;

type Context = {
  devices: Device[];
  /** The stable code of the last failure (the screen words it). */
  error: ProblemCode | null;
  notice: DevicesNotice;
  /** The action waiting for the person's yes, then running. */
  pending: DeviceAction | null;
};

export type DevicesOutput = { signedOut: true };

const NOTICES: Record<Exclude<DeviceAction['action'], 'everywhere'>, DevicesNotice> = {
  logout: 'loggedOut',
  others: 'loggedOutOthers',
  untrust: 'untrusted',
};

export const devicesMachine = setup({
  types: {
    context: {} as Context,
    output: {} as DevicesOutput,
    events: {} as
      | { type: 'LOG_OUT'; id: string }
      | { type: 'LOG_OUT_OTHERS' }
      | { type: 'LOG_OUT_EVERYWHERE' }
      | { type: 'UNTRUST'; id: string }
      | { type: 'CONFIRM' }
      | { type: 'CANCEL' }
      | { type: 'DISMISS' }
      | { type: 'RETRY' },
  },
  actors: {
    listDevices: fromPromise<Device[]>(async () => {
      throw new Error('listDevices is provided by the app');
    }),
    runAction: fromPromise<void, DeviceAction>(async () => {
      throw new Error('runAction is provided by the app');
    }),
  },
  guards: {
    /** Another device of the list that still holds a session (this one signs out with the app's own sign-out). */
    signedInElsewhere: ({ context, event }) =>
      event.type === 'LOG_OUT' && context.devices.some((d) => d.id === event.id && !d.current && d.status === 'active'),
    hasOthers: ({ context }) => context.devices.some((d) => !d.current && d.status === 'active'),
    trustedDevice: ({ context, event }) =>
      event.type === 'UNTRUST' && context.devices.some((d) => d.id === event.id && d.trusted_until !== null),
    everywhere: ({ context }) => context.pending?.action === 'everywhere',
    /** The device or its trust was already gone (done from another tab or device): what the person wanted. */
    alreadyGone: ({ event }) => {
      const error = errorOf(event);
      return isApiFailure(error) && error.status === 404;
    },
  },
  actions: {
    clearMessages: assign({ error: null, notice: null }),
    done: assign({
      notice: ({ context }) =>
        context.pending && context.pending.action !== 'everywhere' ? NOTICES[context.pending.action] : null,
      pending: null,
    }),
  },
}).createMachine({
  id: 'devices',
  context: { devices: [], error: null, notice: null, pending: null },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'listDevices',
        src: 'listDevices',
        onDone: { target: 'ready', actions: assign({ devices: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => problemCodeOf(event) }) },
      },
    },
    /** The list could not be read: nothing to show but the failure and a way to try again. */
    failed: {
      on: { RETRY: { target: 'loading', actions: 'clearMessages' } },
    },
    ready: {
      on: {
        LOG_OUT: {
          guard: 'signedInElsewhere',
          target: 'confirming',
          actions: ['clearMessages', assign({ pending: ({ event }) => ({ action: 'logout' as const, id: event.id }) })],
        },
        LOG_OUT_OTHERS: {
          guard: 'hasOthers',
          target: 'confirming',
          actions: ['clearMessages', assign({ pending: { action: 'others' as const } })],
        },
        LOG_OUT_EVERYWHERE: {
          target: 'confirming',
          actions: ['clearMessages', assign({ pending: { action: 'everywhere' as const } })],
        },
        UNTRUST: {
          guard: 'trustedDevice',
          target: 'acting',
          actions: [
            'clearMessages',
            assign({ pending: ({ event }) => ({ action: 'untrust' as const, id: event.id }) }),
          ],
        },
        DISMISS: { actions: 'clearMessages' },
      },
    },
    confirming: {
      on: {
        CONFIRM: { target: 'acting' },
        CANCEL: { target: 'ready', actions: assign({ pending: null }) },
      },
    },
    acting: {
      invoke: {
        id: 'runAction',
        src: 'runAction',
        input: ({ context }) => context.pending!,
        onDone: [
          { guard: 'everywhere', target: 'signedOut' },
          { target: 'loading', actions: 'done' },
        ],
        onError: [
          { guard: 'alreadyGone', target: 'loading', actions: 'done' },
          { target: 'ready', actions: assign({ error: ({ event }) => problemCodeOf(event), pending: null }) },
        ],
      },
    },
    /** Every session ended, this one too: the root signs the app out. */
    signedOut: { type: 'final' },
  },
  output: { signedOut: true },
});

// The second factor's set-up's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import type { PasskeyCredential } from '../contract/schemas.ts';
import { setupMfaMachine, type PasskeyStart } from '../machines/setupMfa.ts';
import type { Model } from './coverage.ts';
import { AHEAD } from './events.ts';

/** What GET /mfa/-6/activate answers: the payload, and what the browser makes the passkey with. */
export const passkeyStart: PasskeyStart = {
  payload: 'pk',
  options: { challenge: 'bWFrZS1tZQ', rp: { name: 'Tessera', id: 'account.localhost' } },
};
/** The browser's new passkey. */
export const madePasskey: PasskeyCredential = {
  id: 'bmV3',
  rawId: 'bmV3',
  type: 'public-key',
  clientExtensionResults: { credProps: { rk: true } },
  response: { clientDataJSON: 'e30', attestationObject: 'o2Nm' },
};
/** The start whose browser cannot make a passkey (the model's `noPasskeyHere` says so for it, by its
 * account's number). */
const WITHOUT_WEBAUTHN = 'no-webauthn';

const answers = [
  { type: 'xstate.done.actor.methodKinds', output: [] },
  { type: 'xstate.done.actor.methodKinds', output: ['sms', 'totp'] },
  { type: 'xstate.error.actor.methodKinds', error: apiFailure(500, { code: 'internal_error' }) },
  { type: 'xstate.done.actor.startActivation', output: null },
  {
    type: 'xstate.done.actor.startActivation',
    output: { payload: 'p', fuzzion: false, data: { target: '+32 ••• •• •• 44', expires_in: 900, resend_in: 30 } },
  },
  {
    type: 'xstate.error.actor.startActivation',
    error: apiFailure(400, { code: 'invalid_phone', message: 'The phone number provided is invalid' }),
  },
  { type: 'xstate.error.actor.startActivation', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
  { type: 'xstate.done.actor.codeEntry', output: { result: {}, failure: null } },
  { type: 'xstate.done.actor.codeEntry', output: { result: null, failure: { code: 'code_expired' } } },
  // The code came back, and the number is another account's: the answer carries the merge's offer.
  {
    type: 'xstate.done.actor.codeEntry',
    output: {
      result: null,
      failure: { code: 'phone_in_use' },
      body: { code: 'phone_in_use', fuzzion: { payload: 'offer-1', kind: 'phone', target: '+32470444444' } },
    },
  },
  {
    type: 'CODE_SENT',
    ticket: 'p2',
    sent: { target: '+32 ••• •• •• 44', expiresAt: AHEAD + 900_000, resendAt: AHEAD + 30_000 },
  },
  { type: 'xstate.done.actor.remindLater' },
  { type: 'xstate.error.actor.remindLater', error: apiFailure(503, { code: 'database_unavailable' }) },
  // A passkey: its options, the browser's new credential (or refusal), the server's yes, its name.
  { type: 'xstate.done.actor.startPasskey', output: passkeyStart },
  { type: 'xstate.error.actor.startPasskey', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
  { type: 'xstate.error.actor.startPasskey', error: apiFailure(503, { code: 'database_unavailable' }) },
  { type: 'xstate.done.actor.createPasskey', output: madePasskey },
  { type: 'xstate.error.actor.createPasskey', error: Object.assign(new Error('held'), { name: 'InvalidStateError' }) },
  { type: 'xstate.done.actor.confirmPasskey', output: { id: 7, provider: 'iCloud Keychain' } },
  { type: 'xstate.error.actor.confirmPasskey', error: apiFailure(422, { code: 'passkey_refused', attempts_left: 4 }) },
  { type: 'xstate.error.actor.confirmPasskey', error: apiFailure(403, { code: 'step_up_required', message: '' }) },
  { type: 'xstate.done.actor.renamePasskey' },
  { type: 'xstate.error.actor.renamePasskey', error: apiFailure(503, { code: 'database_unavailable' }) },
];

export const setupMfaModel: Model = {
  // What the flow tells its parent needs a parent: the walk runs it alone.
  // The browser's support is the app's to say: here, the start's.
  machine: setupMfaMachine.provide({
    actions: { offerFuzzion: () => {} },
    guards: { noPasskeyHere: ({ context }) => context.knownPhone === WITHOUT_WEBAUTHN },
  }),
  starts: [
    { name: 'a forced user', input: { forced: true, customer: false } },
    { name: 'a forced user with SMS', input: { forced: true, customer: false, hasSms: true } },
    { name: 'an offered customer', input: { forced: false, customer: true } },
    ...(['selection', 'phone', 'email', 'passkey', 'passkeyName'] as const).map((entry) => ({
      name: `from Security: ${entry}`,
      input: { forced: false, customer: false, entry },
    })),
    {
      name: 'from Security, in a browser without passkeys',
      input: { forced: false, customer: false, entry: 'selection', knownPhone: WITHOUT_WEBAUTHN },
      events: () => [
        { type: 'xstate.done.actor.methodKinds', output: [] },
        { type: 'CHOOSE', kind: 'passkey' },
      ],
    },
  ],
  events: () => [
    { type: 'ACTIVATE' },
    { type: 'SKIP' },
    { type: 'CHOOSE', kind: 'sms' },
    { type: 'CHOOSE', kind: 'email' },
    { type: 'CHOOSE', kind: 'totp' },
    { type: 'CHOOSE', kind: 'passkey' },
    { type: 'CREATE' },
    { type: 'CHANGE', value: '0470 44 44 44' },
    { type: 'CHANGE', value: '' },
    { type: 'CHANGE', value: 'x'.repeat(65) },
    { type: 'SUBMIT' },
    { type: 'BACK' },
    { type: 'CONTINUE' },
    ...(['intro', 'selection', 'phone', 'email', 'confirmation', 'passkey', 'passkeyName', 'success'] as const).map(
      (step) => ({
        type: 'ROUTE',
        step,
      }),
    ),
    ...answers,
  ],
  serializeState: ({ value, context }) => {
    const c = context as {
      kind: unknown;
      target: string;
      error: unknown;
      challenge: unknown;
      hasSms: boolean;
      passkey: unknown;
      name: string;
    };
    return JSON.stringify([value, c.kind, !!c.target, !!c.error, !!c.challenge, c.hasSms, !!c.passkey, c.name.length]);
  },
};

// The profile's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import type { UserProfile } from '../contract/schemas.ts';
import { profileMachine, type ProfileStep } from '../machines/profile.ts';
import type { Model } from './coverage.ts';
import { AHEAD, done } from './events.ts';
import { signedInUser } from './starts.ts';

export const user = signedInUser;
export const saved: UserProfile = {
  ...user,
  firstname: 'Emmy',
  banking: { iban: 'BE68 •••• •••• 7034', country: 'BE' },
};
export const withPhone: UserProfile = {
  ...user,
  phone: [...user.phone, { value: '+32470000001', default: false, verified: true }],
};
export const fail = (id: string, status: number, body: Record<string, unknown>) => ({
  type: `xstate.error.actor.${id}`,
  error: apiFailure(status, body as { code: string }),
});
export const input = (step: ProfileStep) => ({ step, user, today: '2026-11-24' });

/** The answer to the code of an address another account has: the merge's offer comes with it. */
export const inUse = {
  code: 'phone_in_use',
  message: 'This phone number is already in use.',
  fuzzion: { payload: 'offer-1', kind: 'phone', target: '+32470000001' },
};

/** What the merge's offer allows, as POST /fuzzion/offer reads it. */
export const offerRead = (canDecline: boolean, ssoOnly: boolean) => ({
  kind: 'phone',
  target: '+32470000001',
  proven: ['code'],
  enough: true,
  password: false,
  methods: [],
  can_decline: canDecline,
  sso_only: ssoOnly,
});

export const profileModel: Model = {
  // What the flow tells its parent needs a parent: the walk runs it alone.
  machine: profileMachine.provide({ actions: { changed: () => {}, save: () => {} } }),
  // Each step it can start at.
  starts: (['overview', 'editInfo', 'credentials', 'bank', 'download'] as const).map((step) => ({
    name: step,
    input: input(step),
  })),
  events: () => [
    { type: 'ROUTE', step: 'overview' },
    { type: 'ROUTE', step: 'editInfo' },
    { type: 'ROUTE', step: 'credentials' },
    { type: 'EDIT_INFO' },
    { type: 'SUBMIT' },
    { type: 'CANCEL' },
    { type: 'DISMISS' },
    { type: 'CHANGE_INFO', field: 'firstname', value: '' },
    { type: 'CHANGE_INFO', field: 'firstname', value: 'Emmy' },
    { type: 'CHANGE_BANK', field: 'country', value: 'BE' },
    { type: 'CHANGE_BANK', field: 'iban', value: 'BE68 5390 0754 7034' },
    { type: 'CHANGE_BANK', field: 'iban', value: 'BE00' },
    { type: 'CHANGE_BANK', field: 'iban', value: 'NL91 ABNA 0417 1643 00' },
    done('saveInfo', saved),
    fail('saveInfo', 400, { code: 'validation_failed', fields: [{ field: 'lastname', code: 'invalid' }] }),
    fail('saveInfo', 503, { code: 'database_unavailable' }),
    done('saveIban', saved),
    fail('saveIban', 422, { code: 'iban_invalid' }),
    fail('saveIban', 422, { code: 'iban_country_mismatch', country: 'NL', chosen: 'BE' }),
    fail('saveIban', 403, { code: 'step_up_required' }),
    { type: 'ADD_CONTACT', kind: 'phone' },
    { type: 'CHANGE_NEW', value: '+32470000001' },
    { type: 'SET_CHANNEL', channel: 'call' },
    { type: 'SEND_CODE' },
    { type: 'CODE_SENT', ticket: 'challenge-2', sent: { target: '+32470000001', expiresAt: AHEAD, resendAt: AHEAD } },
    { type: 'BACK' },
    { type: 'DELETE_CONTACT', contact: { kind: 'email', value: 'emma@example.be' } },
    { type: 'DELETE_CONTACT', contact: { kind: 'email', value: 'nobody@example.be' } },
    { type: 'MAKE_PRIMARY', contact: { kind: 'phone', value: '+32470123456' } },
    { type: 'CONFIRM' },
    { type: 'KEEP' },
    done('startContact', {
      payload: 'p',
      data: { kind: 'phone', target: '+32470000001', expires_at: '2026-11-24T10:00:00Z', expires_in: 900 },
    }),
    fail('startContact', 409, { code: 'phone_unavailable' }),
    done('contactCode', { result: saved, failure: null }),
    done('contactCode', { result: null, failure: { code: 'code_expired' } }),
    done('contactCode', { result: null, failure: { code: 'phone_in_use' }, body: inUse }),
    done('readOffer', offerRead(true, false)),
    done('readOffer', offerRead(false, true)),
    fail('readOffer', 503, { code: 'database_unavailable' }),
    { type: 'MERGE' },
    { type: 'DECLINE' },
    { type: 'USE_ANOTHER' },
    done('cancelOffer', undefined),
    fail('cancelOffer', 503, { code: 'database_unavailable' }),
    done('deleteContact', saved),
    fail('deleteContact', 409, { code: 'last_contact' }),
    done('makePrimary', saved),
    fail('makePrimary', 409, { code: 'primary_needs_mfa' }),
    { type: 'PICTURE_CHOSEN', file: new Blob(['picture']) },
    { type: 'REMOVE_PICTURE' },
    done('uploadPicture', { ...saved, picture: '2026-11-24T09:00:00Z' }),
    fail('uploadPicture', 415, { code: 'invalid_picture' }),
    done('removePicture', saved),
    fail('removePicture', 503, { code: 'database_unavailable' }),
    { type: 'DOWNLOAD' },
    done('exportData', { name: 'tessera-account.json', text: '{}' }),
    fail('exportData', 403, { code: 'step_up_required' }),
  ],
  serializeState: ({ value, context }) => {
    const c = context as {
      info: { firstname: string };
      bank: unknown;
      countryChosen: boolean;
      fieldErrors: unknown;
      error: unknown;
      notice: unknown;
      newContact: unknown;
      challenge: unknown;
      offer: unknown;
      pending: unknown;
    };
    return JSON.stringify([
      value,
      c.info.firstname,
      c.bank,
      c.countryChosen,
      c.fieldErrors,
      c.error,
      c.notice,
      c.newContact,
      !!c.challenge,
      c.offer,
      c.pending,
    ]);
  },
};

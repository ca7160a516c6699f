// The merge's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import type { FuzzionAnswer, FuzzionOffer, FuzzionSendAnswer } from '../contract/fuzzion.ts';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { fuzzionMachine, fuzzionTicket, type FuzzionInput, type FuzzionResult } from '../machines/fuzzion.ts';
import type { Model } from './coverage.ts';
import { AHEAD, done, fail } from './events.ts';
import { cancelled, signed } from './mfa.model.ts';

// The other account's second factors, masked, as the offer names them.
export const email: MfaMethodSummary = { id: 11, method: 'email', target: 'm•••@example.com' };
export const sms: MfaMethodSummary = { id: 12, method: 'sms', target: '+32 ••• •• •• 21' };
export const totp: MfaMethodSummary = { id: 13, method: 'totp' };
export const recovery: MfaMethodSummary = { id: 14, method: 'totpRecovery' };
export const card: MfaMethodSummary = { id: 15, method: 'card' };
export const passkey: MfaMethodSummary = {
  id: 16,
  method: 'passkey',
  name: 'Phone',
  synced: true,
  created_at: '2026-11-01T10:00:00Z',
};
/** A passkey's challenge (POST /mfa/fuzzion): what the browser is asked, no code sent. */
export const passkeyStarted: FuzzionSendAnswer = {
  payload: 'challenge-pk',
  method: 'passkey',
  expires_at: '2099-01-01T00:05:00Z',
  expires_in: 300,
  passkey: { challenge: 'bWVyZ2U', rpId: 'account.localhost', allowCredentials: [] },
};

/** The target /duplicated's query names on the start whose browser cannot use passkeys (the model's
 * `noPasskeyHere` reads it from the start's input). */
export const WITHOUT_WEBAUTHN = 'browser-without-webauthn';

export const offer = (over: Partial<FuzzionOffer> = {}): FuzzionOffer => ({
  kind: 'email',
  target: 'other@example.be',
  proven: ['code'],
  enough: false,
  password: false,
  methods: [email, sms, totp],
  can_decline: true,
  sso_only: false,
  expires_at: '2099-01-01T00:00:00Z',
  ...over,
});
export const result: FuzzionResult = {
  outcome: 'merged',
  emails: [
    { value: 'me@example.be', primary: true },
    { value: 'other@example.be', primary: false },
  ],
  phones: [],
};
export const finished: FuzzionAnswer = { done: true, payload: 'offer', mfa: [], password: false, data: result };
export const more: FuzzionAnswer = { done: false, payload: 'offer', mfa: [totp], password: false };
export const nothingMore: FuzzionAnswer = { done: false, payload: 'offer', mfa: [], password: false };
export const sent: FuzzionSendAnswer = {
  payload: 'challenge-1',
  method: 'email',
  target: 'm•••@example.com',
  expires_at: '2099-01-01T00:00:00Z',
  expires_in: 900,
  resend_in: 30,
};

export type Ctx = {
  step: string;
  preferred: unknown;
  intentKept: boolean;
  payload: string | null;
  offer: FuzzionOffer | null;
  intent: string;
  methods: MfaMethodSummary[];
  passwordCounts: boolean;
  passkeysHere: boolean;
  selected: MfaMethodSummary | null;
  passkey: MfaMethodSummary | null;
  passkeyChallenge: unknown;
  channel: unknown;
  challenge: unknown;
  password: string;
  error: { code: string } | null;
  moreNeeded: boolean;
  answer: FuzzionAnswer | null;
  result: unknown;
  captchaLevel: number | null;
};

export const serializeState = ({ value, context }: { value: unknown; context: unknown }) => {
  const c = context as Ctx;
  const o = c.offer && [
    c.offer.enough,
    c.offer.can_decline,
    c.offer.sso_only,
    c.offer.methods.length,
    c.offer.password,
  ];
  return JSON.stringify([
    value,
    c.step,
    c.preferred,
    c.intentKept,
    c.payload,
    o,
    c.intent,
    c.methods.map((m) => m.id),
    c.passwordCounts,
    c.passkeysHere,
    c.selected?.id,
    c.passkey?.id,
    !!c.passkeyChallenge,
    c.channel,
    !!c.challenge,
    !!c.password,
    c.error?.code,
    c.moreNeeded,
    c.answer?.done,
    !!c.result,
    c.captchaLevel,
  ]);
};

export const fuzzionModel: Model = {
  // What the flow tells its parent needs a parent: the walk runs it alone.
  machine: fuzzionMachine.provide({
    // The browser's support is the app's to say: here, the start's (its first event carries the input).
    guards: {
      noPasskeyHere: ({ event }) => (event as { input?: FuzzionInput }).input?.target === WITHOUT_WEBAUTHN,
    },
    actions: {
      finished: () => {},
      show: () => {},
      chose: () => {},
      leave: () => {},
      opened: () => {},
      closed: () => {},
    },
  }),
  // On any screen; what the tab kept comes with the recall: an offer, none, a finished merge, the
  // choice made before the further proofs' screen. /duplicated's query may name a method.
  starts: [
    { name: 'the offer screen', input: { step: 'offer' } },
    { name: 'the offer screen naming a method', input: { step: 'offer', target: null, method: email.id } },
    { name: 'the further proofs screen', input: { step: 'proofs' } },
    { name: 'the outcome screen', input: { step: 'success' } },
    {
      // Its passkeys are not offered; one the server would still take leaves nothing here.
      name: 'the offer screen in a browser without passkeys',
      input: { step: 'offer', target: WITHOUT_WEBAUTHN },
      events: () => [
        done('recall', { payload: 'offer', result: null }),
        done('readOffer', offer({ methods: [email, passkey] })),
        { type: 'ACCEPT' },
        { type: 'SELECT', id: passkey.id },
        { type: 'SELECT', id: email.id },
        done('startMethod', sent),
        done('fuzzionCode', { result: { ...more, mfa: [passkey] }, failure: null }),
        { type: 'CANCEL' },
      ],
    },
  ],
  events: () => [
    done('recall', { payload: 'offer', result: null }),
    done('recall', { payload: 'offer', result: null, intent: 'decline' }),
    { type: 'CANCEL' },
    done('cancel', undefined),
    fail('cancel', 0, 'network_error'),
    done('recall', { payload: null, result: null }),
    done('recall', { payload: 'offer', result }),
    fail('recall', 0, 'storage_unavailable'),
    { type: 'ACCEPT' },
    { type: 'DECLINE' },
    { type: 'BACK' },
    { type: 'SUBMIT' },
    { type: 'USE_PASSWORD' },
    { type: 'SELECT', id: email.id },
    { type: 'SELECT', id: sms.id, channel: 'call' },
    { type: 'SELECT', id: totp.id },
    { type: 'SELECT', id: 99 },
    { type: 'SELECT', id: passkey.id },
    { type: 'TYPE_PASSWORD', value: '' },
    { type: 'TYPE_PASSWORD', value: 'secret' },
    // The offer: not enough (its second factor next), enough (no second factor), not declinable,
    // its password counting, Microsoft only, and one naming nothing that would count.
    done('readOffer', offer()),
    done('readOffer', offer({ can_decline: false })),
    done('readOffer', offer({ enough: true, methods: [] })),
    done('readOffer', offer({ methods: [email], password: true })),
    done('readOffer', offer({ sso_only: true, can_decline: false, methods: [] })),
    done('readOffer', offer({ methods: [] })),
    done('readOffer', offer({ methods: [totp, passkey] })),
    fail('readOffer', 409, 'merge_unavailable'),
    fail('readOffer', 409, 'merge_sso_only'),
    fail('readOffer', 403, 'step_up_required'),
    done('finish', finished),
    done('finish', more),
    done('finish', nothingMore),
    fail('finish', 409, 'merge_sso_only'),
    fail('finish', 403, 'merge_proof_required'),
    fail('finish', 409, 'decline_unavailable'),
    fail('finish', 409, 'merge_unavailable'),
    fail('finish', 0, 'network_error'),
    done('startMethod', sent),
    fail('startMethod', 429, 'resend_too_soon'),
    fail('startMethod', 409, 'merge_sso_only'),
    fail('startMethod', 409, 'merge_unavailable'),
    {
      type: 'CODE_SENT',
      ticket: fuzzionTicket({ payload: 'offer', intent: 'merge', challenge: 'challenge-2' }),
      sent: { target: 'o***@example.be', expiresAt: AHEAD, resendAt: AHEAD },
    },
    // A passkey: its challenge (or an answer with nothing to ask), the browser's answer or refusal,
    // the server's check.
    done('startPasskey', passkeyStarted),
    done('startPasskey', sent),
    fail('startPasskey', 429, 'too_many_attempts'),
    fail('startPasskey', 409, 'merge_sso_only'),
    fail('startPasskey', 409, 'merge_unavailable'),
    done('askPasskey', signed),
    { type: 'xstate.error.actor.askPasskey', error: cancelled },
    done('checkPasskey', finished),
    done('checkPasskey', more),
    fail('checkPasskey', 422, 'passkey_refused'),
    fail('checkPasskey', 409, 'merge_sso_only'),
    fail('checkPasskey', 409, 'merge_unavailable'),
    done('fuzzionCode', { result: finished, failure: null }),
    done('fuzzionCode', { result: more, failure: null }),
    done('fuzzionCode', { result: null, failure: { code: 'code_expired' } }),
    done('fuzzionCode', { result: null, failure: { code: 'merge_unavailable' } }),
    done('fuzzionCode', { result: null, failure: { code: 'merge_sso_only' } }),
    done('proveByPassword', finished),
    done('proveByPassword', more),
    fail('proveByPassword', 400, 'invalid_credentials'),
    fail('proveByPassword', 409, 'merge_unavailable'),
    fail('proveByPassword', 409, 'merge_sso_only'),
    // Past the other account's ceiling: the refusal names the puzzle; the password goes with its answer, or the problem in its way shows.
    {
      type: 'xstate.error.actor.proveByPassword',
      error: apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 1 }),
    },
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'SUBMIT', captcha: { error: { code: 'captcha_not_loaded' } } },
  ],
  serializeState,
};

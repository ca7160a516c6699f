// The second factor's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import type { MfaChallengeAnswer, MfaMethodSummary, PasskeyCredential } from '../contract/schemas.ts';
import { mfaMachine } from '../machines/mfa.ts';
import type { Model } from './coverage.ts';
import { AHEAD } from './events.ts';

export const methods: MfaMethodSummary[] = [
  { id: 1, method: 'email', target: 'm***@example.be', primary: true },
  { id: 2, method: 'totp', primary: false },
  { id: 3, method: 'passkey', primary: false, name: 'Phone', created_at: '2026-11-01T10:00:00Z', synced: true },
];

/** A passkey's challenge: what the browser is asked, no code sent. */
export const passkeyChallenge: MfaChallengeAnswer = {
  payload: 'pk',
  method: 'passkey',
  expires_at: '2100-01-01T00:05:00Z',
  expires_in: 300,
  passkey: { challenge: 'c2lnbi1tZQ', rpId: 'account.localhost', allowCredentials: [] },
};
/** What the browser answers once the passkey signed it. */
export const signed: PasskeyCredential = {
  id: 'a2V5',
  rawId: 'a2V5',
  type: 'public-key',
  clientExtensionResults: {},
  response: { clientDataJSON: 'e30', authenticatorData: 'YXV0aA', signature: 'c2ln' },
};
/** The browser's refusal when the person cancels (or the request times out). */
export const cancelled = Object.assign(new Error('The operation either timed out or was not allowed.'), {
  name: 'NotAllowedError',
});

/** The start whose browser cannot use passkeys (the model's `noPasskeyHere` says so for it). */
const WITHOUT_WEBAUTHN = 'login-without-webauthn';
const inFuture = (s: number, now: number) => new Date(now + s * 1000).toISOString();
/** A code sent by email, `now` (by default the present). */
export const challenge = (resend: boolean, now = Date.now()): MfaChallengeAnswer => ({
  payload: 'p',
  method: 'email',
  target: 'm***@example.be',
  expires_at: inFuture(900, now),
  ...(resend ? { resend_at: inFuture(30, now) } : {}),
});

export const mfaModel: Model = {
  // The browser's support is the app's to say: here, the start's.
  machine: mfaMachine.provide({
    guards: { noPasskeyHere: ({ context }) => context.loginPayload === WITHOUT_WEBAUTHN },
  }),
  starts: [
    { name: 'a sign-in, on the code', input: { methods, loginPayload: 'login', entry: 'code' } },
    {
      name: 'a sign-in in a browser without passkeys',
      input: { methods, loginPayload: WITHOUT_WEBAUTHN },
      events: () => [
        { type: 'xstate.done.actor.recall', output: null },
        { type: 'SELECT', id: 3 },
        { type: 'SELECT', id: 1 },
      ],
    },
    {
      // A phone's code sent another way from its code screen: a new send, or the same way refused.
      name: 'a sign-in by phone',
      input: { methods: [{ id: 4, method: 'sms', target: '+32 *** ** 22', primary: true }], loginPayload: 'login' },
      events: () => [
        { type: 'xstate.done.actor.recall', output: null },
        { type: 'SELECT', id: 4, channel: 'whatsapp' },
        { type: 'SELECT', id: 4, channel: 'call' },
        { type: 'SELECT', id: 4 },
        { type: 'xstate.done.actor.startChallenge', output: { ...challenge(true, AHEAD), method: 'sms' } },
        { type: 'xstate.error.actor.startChallenge', error: apiFailure(429, { code: 'resend_too_soon' }) },
      ],
      serializeState: ({ value, context }) => {
        const c = context as { channel: string | null; challenge: unknown; error: unknown };
        return JSON.stringify([value, c.channel, !!c.challenge, !!c.error]);
      },
    },
    {
      // A step-up of an account without a second factor: the password stands in for one.
      name: 'a step-up without a second factor',
      input: { methods: [], loginPayload: null },
      events: () => [
        { type: 'xstate.done.actor.recall', output: null },
        { type: 'xstate.error.actor.recall', error: new Error('storage') },
        { type: 'CONFIRM_PASSWORD', password: '' },
        { type: 'CONFIRM_PASSWORD', password: 'pw' },
        { type: 'ROUTE', step: 'methods' },
        // Past the account's ceiling: with the widget's answer, or with the problem in its way.
        { type: 'CONFIRM_PASSWORD', password: 'pw', captcha: { token: 'solved' } },
        { type: 'CONFIRM_PASSWORD', password: 'pw', captcha: { error: { code: 'captcha_not_loaded' } } },
        { type: 'xstate.done.actor.confirmPassword' },
        { type: 'xstate.error.actor.confirmPassword', error: apiFailure(400, { code: 'invalid_credentials' }) },
        {
          type: 'xstate.error.actor.confirmPassword',
          error: apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 1 }),
        },
      ],
      serializeState: ({ value, context }) => {
        const c = context as { error: unknown; captchaLevel: unknown };
        return JSON.stringify([value, !!c.error, c.captchaLevel]);
      },
    },
  ],
  events: () => [
    { type: 'SELECT', id: 1 },
    { type: 'SELECT', id: 2 },
    { type: 'SELECT', id: 99 },
    { type: 'CHANGE_METHOD' },
    { type: 'xstate.done.actor.recall', output: null },
    { type: 'xstate.error.actor.recall', error: new Error('storage') },
    {
      type: 'xstate.done.actor.recall',
      output: {
        loginPayload: 'login',
        selected: methods[0],
        channel: null,
        challenge: { payload: 'p', sent: null },
      },
    },
    { type: 'ROUTE', step: 'methods' },
    { type: 'ROUTE', step: 'code' },
    { type: 'xstate.done.actor.startChallenge', output: challenge(true, AHEAD) },
    { type: 'xstate.error.actor.startChallenge', error: apiFailure(429, { code: 'too_many_attempts' }) },
    {
      type: 'CODE_SENT',
      ticket: 'p2',
      sent: { target: 'm***@example.be', expiresAt: AHEAD + 900_000, resendAt: AHEAD + 45_000 },
    },
    { type: 'xstate.done.actor.codeEntry', output: { result: { access_token: 't' }, failure: null } },
    // A passkey: its challenge, the browser's answer or refusal, the server's check.
    { type: 'SELECT', id: 3 },
    { type: 'TOGGLE_REMEMBER' },
    { type: 'xstate.done.actor.startPasskey', output: passkeyChallenge },
    { type: 'xstate.done.actor.startPasskey', output: { ...passkeyChallenge, passkey: undefined } },
    { type: 'xstate.error.actor.startPasskey', error: apiFailure(429, { code: 'too_many_attempts' }) },
    { type: 'xstate.done.actor.askPasskey', output: signed },
    { type: 'xstate.error.actor.askPasskey', error: cancelled },
    { type: 'xstate.done.actor.checkPasskey', output: { access_token: 't' } },
    { type: 'xstate.error.actor.checkPasskey', error: apiFailure(422, { code: 'passkey_refused', attempts_left: 4 }) },
  ],
  serializeState: ({ value, context }) => {
    const c = context as {
      error: unknown;
      selected: { id: number } | null;
      challenge: unknown;
      passkey: { id: number } | null;
      remember: boolean;
    };
    return JSON.stringify([value, !!c.error, c.selected?.id ?? null, !!c.challenge, c.passkey?.id ?? null, c.remember]);
  },
};

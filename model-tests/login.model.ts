// The sign-in's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { loginMachine, type PasskeyAnswer } from '../machines/login.ts';
import type { Model } from './coverage.ts';

export const failure = (status: number, body: Record<string, unknown>) => apiFailure(status, body);

/** What the sign-in call can answer (spec §8), as the events the invoked actor sends. */
const ANSWERS = [
  { type: 'xstate.done.actor.submitLogin', output: { access_token: 't' } },
  {
    type: 'xstate.error.actor.submitLogin',
    error: failure(400, { code: 'invalid_credentials', message: 'Invalid username/password.' }),
  },
  {
    type: 'xstate.error.actor.submitLogin',
    error: failure(401, { code: 'mfa_required', message: '', mfa: { payload: 'p', methods: [] } }),
  },
  { type: 'xstate.error.actor.submitLogin', error: failure(403, { code: 'weak_password', message: '', payload: 'w' }) },
  { type: 'xstate.error.actor.submitLogin', error: failure(503, { code: 'maintenance', message: '' }) },
  {
    type: 'xstate.error.actor.submitLogin',
    error: failure(400, { code: 'invalid_credentials', message: 'Invalid username/password.', captcha: true }),
  },
  {
    type: 'xstate.error.actor.submitLogin',
    error: failure(400, {
      code: 'captcha_required',
      message: 'Please confirm that you are not a robot.',
      captcha: true,
    }),
  },
];

/** A passkey's signed answer, as the browser gives it (its relying party with it). */
export const signedPasskey: PasskeyAnswer = {
  rpId: 'account.localhost',
  credential: {
    id: 'a2V5',
    rawId: 'a2V5',
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: 'e30', authenticatorData: 'YQ', signature: 'cw', userHandle: 'dQ' },
  },
};

/** The browser's refusals: the person closed its dialog, or it could not use a passkey. */
const browserError = (name: string) => Object.assign(new Error(name), { name });

/** The passkey's ways in and the server's answers to them. */
const PASSKEY_EVENTS = [
  { type: 'PASSKEY_SUPPORT', signIn: true },
  { type: 'PASSKEY_SUPPORT', signIn: false },
  { type: 'PASSKEY' },
  { type: 'PASSKEY_PICKED', answer: signedPasskey },
  { type: 'xstate.done.actor.askPasskey', output: signedPasskey },
  { type: 'xstate.error.actor.askPasskey', error: browserError('NotAllowedError') },
  { type: 'xstate.error.actor.askPasskey', error: browserError('SecurityError') },
  { type: 'xstate.done.actor.passkeySignIn', output: { access_token: 't' } },
  { type: 'xstate.error.actor.passkeySignIn', error: failure(422, { code: 'passkey_unknown', message: '' }) },
  { type: 'xstate.error.actor.passkeySignIn', error: failure(422, { code: 'passkey_refused', message: '' }) },
  { type: 'xstate.error.actor.passkeySignIn', error: failure(503, { code: 'maintenance', message: '' }) },
];

export const loginModel: Model = {
  machine: loginMachine,
  starts: [{ name: 'by email', input: { mode: 'email' } }],
  events: (snapshot) => [
    {
      type: 'CHANGE',
      field: 'username',
      value: (snapshot as { context: { username: string } }).context.username ? '' : 'emma@example.be',
    },
    { type: 'CHANGE', field: 'password', value: 'secret' },
    { type: 'CHANGE', field: 'username', value: 'emma.at.example.be' },
    { type: 'SET_MODE', mode: 'phone' },
    { type: 'SUBMIT' },
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
    { type: 'SUBMIT', captcha: { token: 'solved' }, automatic: true },
    ...ANSWERS,
    ...PASSKEY_EVENTS,
  ],
};

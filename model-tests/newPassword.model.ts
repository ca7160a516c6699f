// The weak password's model: what its test walks and the testers' paths follow.
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import { apiFailure } from '../contract/api.ts';
import { newPasswordMachine } from '../machines/newPassword.ts';
import type { Model } from './coverage.ts';

export const newPasswordModel: Model = {
  machine: newPasswordMachine,
  starts: [{ name: 'the form', input: { payload: 'ticket', policy: DEFAULT_PASSWORD_POLICY } }],
  events: () => [
    { type: 'CHANGE', field: 'password', value: 'Brand-new-pass-77' },
    { type: 'CHANGE', field: 'password', value: 'weak' },
    { type: 'CHANGE', field: 'confirmation', value: 'Brand-new-pass-77' },
    { type: 'SUBMIT' },
    { type: 'PAYLOAD', payload: 'another ticket' },
    // A change past the account's ceiling: with the widget's answer, or with the problem in its way.
    { type: 'SUBMIT', captcha: { token: 'solved' } },
    { type: 'SUBMIT', captcha: { error: { code: 'captcha_not_loaded' } } },
    { type: 'xstate.done.actor.resetPassword' },
    {
      type: 'xstate.error.actor.resetPassword',
      error: apiFailure(422, {
        code: 'password_reused',
        message: 'Choose a password you have not used recently.',
      }),
    },
    {
      type: 'xstate.error.actor.resetPassword',
      error: apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 1 }),
    },
  ],
  serializeState: ({ value, context }) => {
    const c = context as { password: string; confirmation: string; error: unknown; captchaLevel: unknown };
    return JSON.stringify([value, c.password, c.confirmation, !!c.error, c.captchaLevel]);
  },
};

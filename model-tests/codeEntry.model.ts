// The code entry's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { codeEntryMachine, type SentCode } from '../machines/codeEntry.ts';
import type { Model } from './coverage.ts';
import { AHEAD } from './events.ts';

/** A code sent at `now`: it expires in 15 minutes, and may be sent again in 30 seconds. */
export const sentAt = (now: number): SentCode => ({
  target: 'm***@example.be',
  expiresAt: now + 900_000,
  resendAt: now + 30_000,
});

export const codeEntryModel: Model = {
  // Alone, the entry has no flow above it to ask for a new code.
  machine: codeEntryMachine.provide({ actions: { askForNewCode: () => {} } }),
  starts: [
    { name: 'a sent code', input: { ticket: 'p', length: 8, sent: sentAt(AHEAD), endsOn: ['onboarding_expired'] } },
    {
      name: 'a code that cannot be sent again',
      input: { ticket: 'p', length: 8, sent: { ...sentAt(AHEAD), resendAt: null } },
    },
    { name: 'a code nobody sent', input: { ticket: 'p', length: 6, sent: null } },
  ],
  events: (snapshot) => {
    const code = (snapshot as { context: { code: string } }).context.code;
    return [
      { type: 'TYPE', value: code ? '' : '12345678' },
      { type: 'TYPE', value: '123' },
      { type: 'TOGGLE_REMEMBER' },
      { type: 'SUBMIT' },
      { type: 'RESEND' },
      // Once the server wants a puzzle with each code: a submit with its answer, and one without.
      { type: 'SUBMIT', captcha: { token: 'solved' } },
      { type: 'SUBMIT', captcha: { error: { code: 'captcha_not_loaded' } } },
      { type: 'xstate.done.actor.check', output: { access_token: 't' } },
      { type: 'xstate.error.actor.check', error: apiFailure(422, { code: 'invalid_code', message: '' }) },
      {
        type: 'xstate.error.actor.check',
        error: apiFailure(422, { code: 'invalid_code', message: '', captcha: true, captcha_level: 1 }),
      },
      { type: 'xstate.error.actor.check', error: apiFailure(410, { code: 'onboarding_expired', message: '' }) },
      { type: 'xstate.after.expiry.codeEntry.entering.expiry.running' },
      { type: 'xstate.after.resendCooldown.codeEntry.entering.resend.cooling' },
    ];
  },
  serializeState: ({ value, context }) => {
    const c = context as { code: string; remember: boolean; error: unknown; result: unknown; captchaLevel: unknown };
    return JSON.stringify([value, c.code.length, c.remember, !!c.error, !!c.result, c.captchaLevel]);
  },
};

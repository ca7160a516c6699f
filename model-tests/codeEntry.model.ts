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
  // Alone, the entry has no flow above it to tell of a new code.
  machine: codeEntryMachine.provide({ actions: { tellFlow: () => {} } }),
  starts: [
    {
      name: 'a sent code',
      input: { ticket: 'p', length: 8, sent: sentAt(AHEAD), endsOn: ['onboarding_expired'], resend: { to: 'm' } },
    },
    {
      name: 'a sent code whose delivery is followed',
      input: { ticket: 'p', length: 8, sent: sentAt(AHEAD), resend: { to: 'm' }, followsDelivery: true },
    },
    {
      name: 'a code that cannot be sent again',
      input: { ticket: 'p', length: 8, sent: { ...sentAt(AHEAD), resendAt: null }, resend: { to: 'm' } },
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
      { type: 'RESEND', captcha: { error: { code: 'captcha_not_loaded' } } },
      { type: 'xstate.done.actor.send', output: { ticket: 'q', sent: { expires_in: 900, resend_in: 45 } } },
      { type: 'xstate.error.actor.send', error: apiFailure(429, { code: 'resend_too_soon', message: '' }) },
      { type: 'xstate.error.actor.send', error: apiFailure(410, { code: 'onboarding_expired', message: '' }) },
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
      // How the code is getting there: on its way, arrived, or not to be known.
      { type: 'xstate.after.deliveryAsk.codeEntry.entering.delivery.waiting' },
      {
        type: 'xstate.done.actor.askDelivery',
        output: { channel: 'sms', status: 'sent', fell_back_from: 'whatsapp' },
      },
      {
        type: 'xstate.done.actor.askDelivery',
        output: { channel: 'sms', status: 'delivered', fell_back_from: 'whatsapp' },
      },
      { type: 'xstate.error.actor.askDelivery', error: apiFailure(404, { code: 'not_found', message: '' }) },
    ];
  },
  serializeState: ({ value, context }) => {
    const c = context as {
      code: string;
      remember: boolean;
      error: unknown;
      result: unknown;
      captchaLevel: unknown;
      delivery: unknown;
    };
    return JSON.stringify([value, c.code.length, c.remember, !!c.error, !!c.result, c.captchaLevel, !!c.delivery]);
  },
};

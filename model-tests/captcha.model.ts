// The CAPTCHA widget's model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import { CAPTCHA_FAILURES, captchaMachine } from '../machines/captcha.ts';
import type { Model } from './coverage.ts';

export const captchaModel: Model = {
  machine: captchaMachine,
  starts: [
    { name: 'on', input: { enabled: true } },
    { name: 'off', input: { enabled: false } },
  ],
  events: () => [
    { type: 'TAKE' },
    { type: 'RETRY' },
    { type: 'xstate.done.actor.solve', output: 'solved' },
    { type: 'xstate.error.actor.solve', error: apiFailure(0, CAPTCHA_FAILURES.script) },
  ],
};

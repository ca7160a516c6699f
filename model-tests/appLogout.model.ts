// An application's sign-out's model: what its test walks and the testers' paths follow.
import type { LogoutRequestAnswer } from '../contract/schemas.ts';
import { appLogoutMachine } from '../machines/appLogout.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';
import { client } from './consent.model.ts';

export const REF = 'r'.repeat(43);
export const request: LogoutRequestAnswer = { client, action: '/oidc/session/end/confirm', xsrf: 'xsrf-secret' };

export const appLogoutModel: Model = {
  machine: appLogoutMachine,
  // The confirmation with a reference, without one, and the success.
  starts: [
    { name: 'a request', input: { step: 'confirm', search: `?ref=${REF}` } },
    { name: 'no request', input: { step: 'confirm', search: '' } },
    { name: 'signed out', input: { step: 'done', search: '' } },
  ],
  events: () => [
    { type: 'SIGN_OUT' },
    { type: 'STAY' },
    { type: 'RETRY' },
    done('readLogout', request),
    fail('readLogout', 404, 'not_found'),
    fail('readLogout', 0, 'network_error'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { form: unknown; error: unknown; stayed: boolean };
    return JSON.stringify([value, c.form !== null, c.error, c.stayed]);
  },
};

// The consent's model: what its test walks and the testers' paths follow.
import type { AuthorizeAnswer } from '../contract/schemas.ts';
import { consentMachine } from '../machines/consent.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

/** The partner application, as both the consent and the partner pages name it. */
export const client = {
  client_id: 'deals-partner',
  name: 'Deals partner',
  logo_uri: null,
  policy_uri: null,
  tos_uri: null,
};
export const asking: AuthorizeAnswer = { client, approvalType: ['openid', 'user'], granted: [] };
export const answered: AuthorizeAnswer = { client, granted: ['openid'], target: '/oidc/auth/abc' };

export const consentModel: Model = {
  machine: consentMachine,
  // Two named starts: with the request's uid, and without one (the `starting` branch to `gone`).
  starts: [
    { name: 'a request', input: { uid: 'abc' } },
    { name: 'no request', input: { uid: null } },
  ],
  events: () => [
    { type: 'ACCEPT' },
    { type: 'REFUSE' },
    { type: 'RETRY' },
    { type: 'RETURN' },
    done('readRequest', asking),
    done('readRequest', answered),
    fail('readRequest', 410, 'authorization_expired'),
    fail('readRequest', 0, 'network_error'),
    done('sendApproval', { target: '/oidc/auth/abc' }),
    fail('sendApproval', 410, 'authorization_expired'),
    fail('sendApproval', 503, 'database_unavailable'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { scopes: string[]; target: unknown; error: unknown };
    return JSON.stringify([value, c.scopes.length, c.target, c.error]);
  },
};

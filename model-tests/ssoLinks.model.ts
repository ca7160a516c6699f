// The linked Microsoft accounts' model: what its test walks and the testers' paths follow.
import type { SsoIdentity, SsoIdentityList } from '../contract/sso.ts';
import { ssoLinksMachine } from '../machines/ssoLinks.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

const identity = (id: string): SsoIdentity => ({
  id,
  provider: 'microsoft',
  tenant: { id: 'tenant-a', name: 'Contoso' },
  email: 'ann@contoso.example',
  name: 'Ann',
  linked_at: '2026-11-01T10:00:00.000Z',
  last_used_at: null,
});
export const list: SsoIdentityList = { data: [identity('one'), identity('two')], sso_only: false };

export const ssoLinksModel: Model = {
  machine: ssoLinksMachine,
  starts: [{ name: 'the list' }],
  events: () => [
    { type: 'UNLINK', id: 'one' },
    { type: 'UNLINK', id: 'unknown' },
    { type: 'CONFIRM' },
    { type: 'CANCEL' },
    { type: 'RETRY' },
    { type: 'DISMISS' },
    done('listIdentities', list),
    fail('listIdentities', 404, 'sso_unavailable'),
    fail('listIdentities', 503, 'database_unavailable'),
    done('unlink'),
    fail('unlink', 404, 'not_found'),
    fail('unlink', 403, 'step_up_required'),
    fail('unlink', 409, 'sso_last_identity'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { identities: unknown[]; error: unknown; notice: unknown; pending: unknown };
    return JSON.stringify([value, c.identities.length, c.error, c.notice, c.pending]);
  },
};

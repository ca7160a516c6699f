// The access grants' model: what its test walks and the testers' paths follow.
import type { AccessGrant } from '../contract/schemas.ts';
import { accessMachine } from '../machines/access.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

const grant = (client_id: string, name: string): AccessGrant => ({
  client_id,
  name,
  logo_uri: null,
  scopes: ['profile'],
  granted_at: '2026-11-01T10:00:00.000Z',
  last_used_at: null,
});
export const grants = [grant('deals', 'Deals partner'), grant('17', 'Employee area')];

export const accessModel: Model = {
  machine: accessMachine,
  starts: [{ name: 'the list' }],
  events: () => [
    { type: 'REVOKE', clientId: 'deals' },
    { type: 'REVOKE', clientId: 'unknown' },
    { type: 'CONFIRM' },
    { type: 'CANCEL' },
    { type: 'DISMISS' },
    { type: 'RETRY' },
    done('listGrants', grants),
    fail('listGrants', 503, 'database_unavailable'),
    done('revokeGrant'),
    fail('revokeGrant', 404, 'not_found'),
    fail('revokeGrant', 500, 'internal_error'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { grants: unknown[]; error: unknown; notice: unknown; pending: unknown };
    return JSON.stringify([value, c.grants.length, c.error, c.notice, c.pending]);
  },
};

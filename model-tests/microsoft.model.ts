// The Microsoft sign-in's models (its beta notice, and its second factor): what their tests walk and
// the testers' paths follow.
import type { MfaMethodSummary } from '../contract/baseSchemas.ts';
import { microsoftMfaMachine, microsoftStartMachine, type Tenant } from '../machines/microsoft.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

export const ONE: Tenant[] = [{ id: 'tenant-a', name: 'Contoso' }];
export const TWO: Tenant[] = [...ONE, { id: 'tenant-b', name: null }];
export const methods: MfaMethodSummary[] = [{ id: 3, method: 'email', target: 'a***@contoso.example', primary: true }];

export const microsoftStartModel: Model = {
  machine: microsoftStartMachine,
  starts: [
    { name: 'one company', input: { tenants: ONE, device: 'device-1', redirect: null } },
    { name: 'several companies', input: { tenants: TWO, device: 'device-1', redirect: null } },
  ],
  events: () => [
    { type: 'CHOOSE', tenant: 'tenant-b' },
    { type: 'CHOOSE', tenant: 'elsewhere' },
    { type: 'CONTINUE' },
    { type: 'CLOSE' },
  ],
};

export const microsoftMfaModel: Model = {
  machine: microsoftMfaMachine,
  starts: [
    { name: 'a payload', input: { payload: 'payload-1' } },
    { name: 'no payload', input: { payload: null } },
  ],
  events: () => [
    done('exchange', { code: 'mfa_required', message: '', mfa: { payload: 'payload-1', methods } }),
    fail('exchange', 410, 'ticket_invalid'),
  ],
};

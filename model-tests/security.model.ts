// The second factors' settings model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { securityMachine } from '../machines/security.ts';
import type { Model } from './coverage.ts';
import { done } from './events.ts';

export const methods: MfaMethodSummary[] = [
  { id: 1, method: 'email', target: 'e***@example.be', primary: true },
  { id: 2, method: 'sms', target: '+32•••••••56', primary: false },
];
const fail = (id: string, code: string) => ({ type: `xstate.error.actor.${id}`, error: apiFailure(409, { code }) });

export const securityModel: Model = {
  machine: securityMachine,
  starts: [
    { name: 'the list', input: {} },
    { name: 'the list, a method just added', input: { notice: 'added' } },
  ],
  events: () => [
    { type: 'SWITCH', id: 2 },
    { type: 'DELETE', id: 2 },
    { type: 'DELETE', id: 99 },
    { type: 'REGENERATE' },
    { type: 'DISMISS' },
    { type: 'CONFIRM' },
    { type: 'CANCEL' },
    { type: 'SAVED' },
    done('listMethods', methods),
    fail('listMethods', 'unauthorized'),
    done('switchPrimary'),
    fail('switchPrimary', 'step_up_required'),
    done('deleteMethod'),
    fail('deleteMethod', 'last_method'),
    done('regenerate', { recovery_keys: ['A'] }),
    fail('regenerate', 'not_found'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { methods: unknown[]; keys: unknown; error: unknown; notice: unknown; pending: unknown };
    return JSON.stringify([value, c.methods.length, !!c.keys, c.error, c.notice, c.pending]);
  },
};

// The second factors' settings model: what its test walks and the testers' paths follow.
import { apiFailure } from '../contract/api.ts';
import type { MfaMethodSummary } from '../contract/schemas.ts';
import { securityMachine } from '../machines/security.ts';
import type { Model } from './coverage.ts';
import { done } from './events.ts';

export const methods: MfaMethodSummary[] = [
  { id: 1, method: 'email', target: 'e***@example.be', primary: true },
  { id: 2, method: 'sms', target: '+32 ••• •• •• 56', primary: false },
];
/** A passkey, as the list names it: named by its owner, synced, never used. */
export const passkey: MfaMethodSummary = {
  id: 3,
  method: 'passkey',
  primary: false,
  name: 'Phone',
  provider: 'iCloud Keychain',
  created_at: '2026-11-01T10:00:00Z',
  synced: true,
};
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
    { type: 'RENAME', id: passkey.id },
    { type: 'RENAME', id: 1 },
    { type: 'NAME', value: 'Work laptop' },
    { type: 'NAME', value: ' ' },
    { type: 'NAME', value: 'x'.repeat(65) },
    { type: 'SAVE_NAME' },
    done('listMethods', methods),
    done('listMethods', [...methods, passkey]),
    fail('listMethods', 'unauthorized'),
    done('switchPrimary'),
    fail('switchPrimary', 'step_up_required'),
    done('deleteMethod'),
    fail('deleteMethod', 'last_method'),
    done('regenerate', { recovery_keys: ['A'] }),
    fail('regenerate', 'not_found'),
    done('renamePasskey'),
    fail('renamePasskey', 'not_found'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as {
      methods: unknown[];
      keys: unknown;
      error: unknown;
      notice: unknown;
      pending: unknown;
      renaming: { name: string; error: unknown } | null;
    };
    const renaming = c.renaming && [c.renaming.name.trim().length, !!c.renaming.error];
    return JSON.stringify([value, c.methods.length, !!c.keys, c.error, c.notice, c.pending, renaming]);
  },
};

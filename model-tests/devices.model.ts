// The devices' model: what its test walks and the testers' paths follow.
import type { Device } from '../contract/schemas.ts';
import { devicesMachine } from '../machines/devices.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

const device = (id: string, extra: Partial<Device> = {}): Device => ({
  id,
  user_agent: null,
  browser: 'Firefox 128.0',
  os: 'Windows 10',
  platform: 'desktop',
  country: 'BE',
  city: null,
  first_seen_at: '2026-11-01T10:00:00.000Z',
  last_seen_at: '2026-11-20T10:00:00.000Z',
  trusted_until: null,
  current: false,
  status: 'active',
  sessions: 1,
  services: [],
  ...extra,
});
export const devices = [
  device('here', { current: true }),
  device('phone', { trusted_until: '2026-12-20T10:00:00.000Z' }),
  device('old', { status: 'signed_out', sessions: 0 }),
];

export const devicesModel: Model = {
  machine: devicesMachine,
  starts: [{ name: 'the list' }],
  events: () => [
    { type: 'LOG_OUT', id: 'phone' },
    { type: 'LOG_OUT', id: 'here' },
    { type: 'LOG_OUT', id: 'old' },
    { type: 'LOG_OUT_OTHERS' },
    { type: 'LOG_OUT_EVERYWHERE' },
    { type: 'UNTRUST', id: 'phone' },
    { type: 'UNTRUST', id: 'here' },
    { type: 'CONFIRM' },
    { type: 'CANCEL' },
    { type: 'DISMISS' },
    { type: 'RETRY' },
    done('listDevices', devices),
    fail('listDevices', 503, 'database_unavailable'),
    done('runAction'),
    fail('runAction', 404, 'not_found'),
    fail('runAction', 403, 'step_up_required'),
  ],
  serializeState: ({ value, context }) => {
    const c = context as { devices: unknown[]; error: unknown; notice: unknown; pending: unknown };
    return JSON.stringify([value, c.devices.length, c.error, c.notice, c.pending]);
  },
};

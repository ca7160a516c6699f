// The notifications' model: what its test walks and the testers' paths follow.
import type { MarketingPreferences, NotificationsAnswer } from '../contract/schemas.ts';
import { notificationsMachine } from '../machines/notifications.ts';
import type { Model } from './coverage.ts';
import { done, fail } from './events.ts';

export const answer = (marketing: MarketingPreferences): NotificationsAnswer => ({
  marketing,
  security_alerts: ['password_changed'],
});
export const given = answer({ email: true, sms: false, partners: false });

export const notificationsModel: Model = {
  machine: notificationsMachine,
  starts: [{ name: 'the settings' }],
  events: () => [
    { type: 'TOGGLE', key: 'sms', value: true },
    { type: 'TOGGLE', key: 'sms', value: false },
    { type: 'SAVE' },
    { type: 'DISMISS' },
    { type: 'RETRY' },
    done('loadNotifications', given),
    fail('loadNotifications', 503, 'database_unavailable'),
    done('saveNotifications', answer({ email: true, sms: true, partners: false })),
    fail('saveNotifications', 500, 'internal_error'),
  ],
  serializeState: ({ value, context }) => JSON.stringify([value, context]),
};

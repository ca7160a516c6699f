// The new-device mail: a sign-in from a device its account never used (and the account had used
// others) sends the person a mail in their language with the device's browser and system, its
// country and the time, at most one an hour per account, with a "this wasn't me" link. The link
// ends that sign-in's session and leads to choosing a new password (the forgotten-password flow,
// which proves the person by a code: whoever knows the password alone cannot take it over).
// The link is the configured origin of the variant signed in to (never the request's Host), and
// its ticket is in the hash: the page (src/devices/NotMePage.tsx) posts it to the API.
import { NOT_ME_PATH } from '../../contract/constants.ts';
import { describeAgent, placeOf } from '../clientinfo/index.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { newDeviceMessage } from '../delivery/messages.ts';
import { writeEvents } from '../events/record.ts';
import { firstEmailOf, lockedLanguageOf } from '../identity/accounts.ts';
import type { NewDevice, NewDeviceHook } from '../sessions/records.ts';
import { issueTicket } from '../sessions/tickets.ts';

export const NOT_ME_TICKET = 'not_me';
/** How long the "this wasn't me" link works. */
const NOT_ME_TTL_S = 7 * 24 * 3600;
/** At most one new-device mail per account in this time. */
export const ALERT_INTERVAL_MS = 3600_000;
const MAIL_TTL_S = 24 * 3600;

/** The hook the sign-in records call (server/sessions/records.ts) with the new devices of a batch. */
export function newDeviceAlerts(ctx: Pick<AppContext, 'outbox' | 'db'>): NewDeviceHook {
  return async (devices) => {
    let queued = false;
    // Each in a transaction of its own: the mail, its link and its event, or none of them.
    for (const device of devices)
      if (await ctx.db.transaction().execute((trx) => alert(ctx, trx, device))) queued = true;
    if (queued) ctx.outbox.kick();
  };
}

async function alert(ctx: Pick<AppContext, 'outbox'>, trx: Db, device: NewDevice): Promise<boolean> {
  if (!device.origin) return false;
  // One mail an hour: the account's row is locked while the last mail is looked for, so batches
  // written at once by several instances (PostgreSQL) send one; SQLite writes one at a time.
  const person = await lockedLanguageOf(trx, device.userId);
  if (!person) return false;
  const recent = await trx
    .selectFrom('security_events')
    .select('id')
    .where('user_id', '=', device.userId)
    .where('type', '=', 'new_device_alert')
    .where('created_at', '>', nowIso(Date.now() - ALERT_INTERVAL_MS))
    .executeTakeFirst();
  if (recent) return false;
  const email = await firstEmailOf(trx, device.userId);
  if (!email) return false;
  const ticket = await issueTicket(trx, device.userId, NOT_ME_TICKET, NOT_ME_TTL_S, {
    session: device.sessionId,
    user: device.userId,
  });
  const text = newDeviceMessage(person.language, {
    ...describeAgent(device.userAgent),
    ...placeOf(device.ip, person.language),
    at: device.at,
    notMeLink: `${device.origin}${NOT_ME_PATH}#${ticket}`,
  });
  await ctx.outbox.enqueue(trx, { channel: 'email', to: email, ...text, ttlSeconds: MAIL_TTL_S });
  await writeEvents(trx, [
    {
      type: 'new_device_alert',
      userId: device.userId,
      ip: device.ip,
      deviceKey: device.deviceKey,
      detail: { session: device.sessionId },
    },
  ]);
  return true;
}

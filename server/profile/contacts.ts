// The account's emails and phone numbers (spec §5, §7 "POST /user/login", "/user/login/confirm"):
// adding one proven by a code sent to it, deleting one, making one primary. Each is a sensitive
// change (the routes ask a recent second factor) and each tells the address it takes something
// from: the primary email of an addition, the removed address, the former primary.
import { sql, type Transaction } from 'kysely';
import { normalisePhone } from '../../contract/phone.ts';
import { isEmail, normaliseEmail } from '../../contract/rules.ts';
import { UNDO_CHANGE_DAYS, UNDO_CHANGE_PATH, type Variant } from '../../contract/constants.ts';
import type { AppContext } from '../context.ts';
import { lockUser } from '../db/locks.ts';
import type { Database } from '../db/schema.ts';
import { noticeMessage, type NoticeKind } from '../delivery/notices.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { addVerifiedContact, contactTable, languageOf, type ContactKind } from '../identity/accounts.ts';
import { detachContact, methodsBehind } from '../identity/contacts.ts';
import { methodsOf } from '../identity/second-factors.ts';
import { offerAfterCode } from '../identity/duplicates.ts';
import { startChallenge, verifyChallenge } from '../methods/challenges.ts';
import { spend } from '../ratelimit/index.ts';
import { hashToken, newId, newToken } from '../sessions/tokens.ts';
import { nowIso } from '../db/index.ts';

/** Notices of a change stay worth sending for a day. */
const NOTICE_TTL_S = 24 * 3600;

/** `origin`: the configured public origin of the variant the person uses, for the notice's undo link. */
export type Caller = {
  userId: string;
  sessionId: string;
  language: string;
  variant: Variant;
  deviceKey: string;
  ip: string;
  origin: string;
};
export type ContactRef = { kind: ContactKind; value: string };

const unavailable = (kind: ContactKind) =>
  kind === 'email' ? ('email_unavailable' as const) : ('phone_unavailable' as const);
const inUse = (kind: ContactKind) => (kind === 'email' ? ('email_in_use' as const) : ('phone_in_use' as const));

/** The address or number as stored (lower-cased email, E.164 number), or the spec's "invalid". */
export function contactOf(
  input: { email?: string | undefined; phone?: string | undefined },
  variant: Variant,
): ContactRef {
  if ((input.email === undefined) === (input.phone === undefined))
    throw new ApiError('validation_failed', { fields: [{ field: 'email', code: 'one_of_email_or_phone' }] });
  if (input.email !== undefined) {
    const value = normaliseEmail(input.email);
    if (!isEmail(value)) throw new ApiError('invalid_email');
    return { kind: 'email', value };
  }
  const value = normalisePhone(input.phone!, variant === 'lu' ? 'LU' : 'BE');
  if (!value) throw new ApiError('invalid_phone');
  return { kind: 'phone', value };
}

export type ContactChallenge = {
  payload: string;
  data: {
    kind: ContactKind;
    target: string;
    expires_at: string;
    expires_in: number;
    resend_at?: string;
    resend_in?: number;
  };
};

/** POST /user/login: sends a code to a new address or number. One the account has already is
 * "invalid or already used". Whether another account holds it is not said here, whoever asks: the
 * code goes out all the same, and only its answer (confirmContact) leads to the merge. */
export async function startAddingContact(
  ctx: AppContext,
  caller: Caller,
  contact: ContactRef,
  channel?: 'sms' | 'call' | 'whatsapp',
): Promise<ContactChallenge> {
  const { userId } = caller;
  // Addresses are sent codes on the account's behalf: they are counted.
  const wait = await spend(ctx.limiters.targetLookups, userId);
  if (wait > 0) throw ApiError.tooMany(wait);
  const own = await ctx.db
    .selectFrom(contactTable(contact.kind))
    .select('id')
    .where('user_id', '=', userId)
    .where('value', '=', contact.value)
    .executeTakeFirst();
  if (own) throw new ApiError(unavailable(contact.kind));
  const started = await startChallenge(ctx, {
    userId,
    language: caller.language,
    purpose: 'contact',
    deviceKey: caller.deviceKey,
    ip: caller.ip,
    subject: { id: null, method: contact.kind === 'email' ? 'email' : 'sms', target: contact.value },
    ...(contact.kind === 'phone' && channel ? { channel } : {}),
  });
  return {
    payload: started.payload,
    data: {
      kind: contact.kind,
      target: contact.value,
      expires_at: started.expires_at,
      expires_in: started.expires_in,
      ...(started.resend_at ? { resend_at: started.resend_at, resend_in: started.resend_in! } : {}),
    },
  };
}

/** POST /user/login/confirm: the code proves the address, which joins the account's contacts,
 * verified. Where another account holds it, the answer is "already in use" with the offer to merge
 * (the code is its first proof). Of two accounts racing for one address, the first to confirm keeps
 * it, and the other is offered the merge. */
export async function confirmContact(
  ctx: AppContext,
  caller: Caller,
  payload: string,
  code: string,
): Promise<ContactRef> {
  const passed = await verifyChallenge(ctx, payload, code, {
    purposes: ['contact'],
    deviceKey: caller.deviceKey,
    ip: caller.ip,
  });
  if (passed.userId !== caller.userId || !passed.target) throw new ApiError('challenge_closed');
  const contact: ContactRef = { kind: passed.newMethod === 'email' ? 'email' : 'phone', value: passed.target };
  const offerIfTaken = async () => {
    const offer = await offerAfterCode(ctx, caller, contact.kind, contact.value);
    if (offer) throw new ApiError(inUse(contact.kind), { fuzzion: offer });
  };
  await offerIfTaken();
  let lost = false;
  await changeAndTell(ctx, caller, async (trx) => {
    if (!(await addVerifiedContact(trx, caller.userId, contact.kind, contact.value))) {
      lost = true;
      return null;
    }
    return { notice: 'contact_added', to: 'primary', detail: contact.value, change: { kind: 'added', contact } };
  });
  if (lost) {
    await offerIfTaken();
    throw new ApiError(inUse(contact.kind));
  }
  await recordContactEvent(ctx, caller, contact, 'added');
  return contact;
}

/** The caller's security event of a change to one of their contacts. */
function recordContactEvent(
  ctx: AppContext,
  caller: Caller,
  contact: ContactRef,
  change: 'added' | 'removed' | 'primary_changed',
): Promise<void> {
  return recordEvent(ctx.db, {
    type: `${contact.kind}_${change}`,
    userId: caller.userId,
    ip: caller.ip,
    deviceKey: caller.deviceKey,
    detail: { value: contact.value },
  });
}

/** The account's contacts of the kind of `contact`, and that one (not_found when the account has none such). */
async function contactsWith(trx: Transaction<Database>, userId: string, contact: ContactRef) {
  const rows = await trx
    .selectFrom(contactTable(contact.kind))
    .select(['value', 'is_default', 'verified'])
    .where('user_id', '=', userId)
    .execute();
  const row = rows.find((r) => r.value === contact.value);
  if (!row) throw new ApiError('not_found');
  return { rows, row };
}

/** Deletes an address or number. The last email, the last phone and the primary one stay; so does
 * the contact behind the account's last email or SMS second factor. Second factors that send to the
 * deleted contact go with it (their codes would reach nobody). */
export async function deleteContact(ctx: AppContext, caller: Caller, contact: ContactRef): Promise<void> {
  const { userId } = caller;
  await changeAndTell(ctx, caller, async (trx) => {
    const { rows, row } = await contactsWith(trx, userId, contact);
    if (rows.length === 1) throw new ApiError('last_contact');
    if (row.is_default === 1) throw new ApiError('primary_contact');
    const methods = await methodsOf(trx, userId);
    const behind = methodsBehind(methods, contact.kind, contact.value);
    const emailOrSms = methods.filter((m) => m.method === 'email' || m.method === 'sms');
    if (emailOrSms.length > 0 && emailOrSms.every((m) => behind.includes(m))) throw new ApiError('last_method');
    await detachContact(trx, userId, contact.kind, contact.value);
    return { notice: 'contact_removed', to: contact, detail: contact.value, change: { kind: 'removed', contact } };
  });
  await recordContactEvent(ctx, caller, contact, 'removed');
}

/** Makes an address or number the primary one: only a verified one that a second factor sends to
 * (spec §5). One statement sets every flag of the kind, so two switches at once leave one primary. */
export async function makePrimary(ctx: AppContext, caller: Caller, contact: ContactRef): Promise<void> {
  const { userId } = caller;
  let former: string | undefined;
  await changeAndTell(ctx, caller, async (trx) => {
    const { rows, row } = await contactsWith(trx, userId, contact);
    former = rows.find((r) => r.is_default === 1)?.value;
    if (row.is_default === 1) return null;
    const methods = await methodsOf(trx, userId);
    const protectedBy = methodsBehind(methods, contact.kind, contact.value).length > 0;
    if (row.verified !== 1 || !protectedBy) throw new ApiError('primary_needs_mfa');
    await trx
      .updateTable(contactTable(contact.kind))
      .set({ is_default: sql<0 | 1>`case when value = ${contact.value} then 1 else 0 end` })
      .where('user_id', '=', userId)
      .execute();
    return former
      ? {
          notice: 'primary_changed',
          to: { kind: contact.kind, value: former },
          detail: contact.value,
          change: { kind: 'primary', contact, previous: former },
        }
      : null;
  });
  if (former !== contact.value) await recordContactEvent(ctx, caller, contact, 'primary_changed');
}

/** What an undo puts back (server/profile/undo.ts). */
export type UndoableChange =
  | { kind: 'added'; contact: ContactRef }
  | { kind: 'removed'; contact: ContactRef }
  | { kind: 'primary'; contact: ContactRef; previous: string };

type Telling = { notice: NoticeKind; to: 'primary' | ContactRef; detail: string; change: UndoableChange } | null;

/** Runs a change under the account's lock, then queues its notice in the same transaction: the
 * notice goes if and only if the change is made, with the link that undoes it for a week. */
async function changeAndTell(
  ctx: AppContext,
  caller: Caller,
  change: (trx: Transaction<Database>) => Promise<Telling>,
): Promise<void> {
  const { userId } = caller;
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockUser(trx, userId))) throw new ApiError('unauthorized');
    const telling = await change(trx);
    if (!telling) return;
    const to =
      telling.to === 'primary'
        ? await trx
            .selectFrom('user_emails')
            .select('value')
            .where('user_id', '=', userId)
            .where('is_default', '=', 1)
            .executeTakeFirst()
            .then((row) => (row ? { kind: 'email' as const, value: row.value } : null))
        : telling.to;
    if (!to) return;
    const language = await languageOf(trx, userId);
    const token = newToken();
    await trx
      .insertInto('account_change_undos')
      .values({
        id: newId(),
        user_id: userId,
        token_hash: hashToken(token),
        change: JSON.stringify(telling.change),
        created_at: nowIso(),
        expires_at: nowIso(Date.now() + UNDO_CHANGE_DAYS * 86_400_000),
        used_at: null,
      })
      .execute();
    const undo = `${caller.origin}${UNDO_CHANGE_PATH}#${token}`;
    const channel = to.kind === 'email' ? ('email' as const) : ('sms' as const);
    await ctx.outbox.enqueue(trx, {
      channel,
      to: to.value,
      ...noticeMessage(language, telling.notice, { value: telling.detail, undo }, channel),
      ttlSeconds: NOTICE_TTL_S,
    });
  });
  ctx.outbox.kick();
}

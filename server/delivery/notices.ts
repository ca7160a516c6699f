// Notices that tell an account of a change made to it, in the account's language: sent to the
// account's primary email and phone, so that a change nobody asked for does not go unseen. They
// carry no secret and no link that acts: the person who did not make the change signs in and looks.
// Their texts are i18next resources in locales/server/ (notices.*).
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { textsIn } from './i18n.ts';
import type { Channel } from './index.ts';

/** A notice is worth delivering for a day: after that, the history says it. */
export const NOTICE_TTL_S = 24 * 3600;

/** The changes an account is told of. */
export type NoticeKind =
  | 'iban_changed'
  | 'contact_added'
  | 'contact_removed'
  | 'primary_changed'
  /** To the account that took another over, and to the account merged into it (now closed). */
  | 'accounts_merged'
  | 'account_merged_away'
  | 'passkey_added';

/** What the notice names: the masked IBAN and its country code; the address or number added,
 * removed or now primary. */
export type NoticeDetail = { iban?: string; country?: string; value?: string; undo?: string };

/** The notice of a change, for an email or a text message, in the account's language. */
export function noticeMessage(
  language: string,
  kind: NoticeKind,
  detail: NoticeDetail,
  channel: Extract<Channel, 'email' | 'sms'>,
): { subject: string; body: string } {
  const t = textsIn(language);
  return {
    subject: t(`notices.${kind}.subject`),
    body: t(`notices.${kind}.${channel === 'email' ? 'body' : 'sms'}`, detail),
  };
}

/** Queues a notice to the account's primary email and phone, in the caller's transaction (the
 * notice and the change commit together); the caller kicks the outbox once it committed. */
export async function tellAccount(
  ctx: Pick<AppContext, 'outbox'>,
  trx: Db,
  account: { userId: string; language: string },
  kind: NoticeKind,
  detail: NoticeDetail,
): Promise<void> {
  for (const { channel, to } of await primaryContacts(trx, account.userId)) {
    const text = noticeMessage(account.language, kind, detail, channel);
    await ctx.outbox.enqueue(trx, { channel, to, ...text, ttlSeconds: NOTICE_TTL_S });
  }
}

/** The account's primary email and phone, where it has them. */
async function primaryContacts(db: Db, userId: string): Promise<{ channel: 'email' | 'sms'; to: string }[]> {
  const [email, phone] = await Promise.all([
    db
      .selectFrom('user_emails')
      .select('value')
      .where('user_id', '=', userId)
      .where('is_default', '=', 1)
      .executeTakeFirst(),
    db
      .selectFrom('user_phones')
      .select('value')
      .where('user_id', '=', userId)
      .where('is_default', '=', 1)
      .executeTakeFirst(),
  ]);
  return [
    ...(email ? [{ channel: 'email' as const, to: email.value }] : []),
    ...(phone ? [{ channel: 'sms' as const, to: phone.value }] : []),
  ];
}

// Notices that tell an account of a change made to it, in the account's language: sent to the
// account's primary email and phone, so that a change nobody asked for does not go unseen. They
// carry no secret and no link that acts: the person who did not make the change signs in and looks.
// Their texts are i18next resources in locales/server/ (notices.*).
import { textsIn } from './i18n.ts';
import type { Channel } from './index.ts';

/** The changes an account is told of. */
export type NoticeKind =
  | 'iban_changed'
  | 'contact_added'
  | 'contact_removed'
  | 'primary_changed'
  /** To the account that took another over, and to the account merged into it (now closed). */
  | 'accounts_merged'
  | 'account_merged_away';

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

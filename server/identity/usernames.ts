// An account's usernames are its emails and phones: how a typed one is read (the same way by the
// sign-in and the forgotten password), and how they are shown masked (the forgotten username, and
// an onboarding that finds its card already active).
import type { Variant } from '../../contract/constants.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { looksLikeEmail, normaliseEmail } from '../../contract/rules.ts';
import type { Db } from '../db/index.ts';
import { rankedContacts } from './accounts.ts';
import { maskTarget } from '../methods/codes.ts';

/** The canonical login name: a lower-cased email, or a phone in E.164 (variant's country by default). */
export function loginName(username: string, variant: Variant): { kind: 'email' | 'phone'; value: string } | null {
  const trimmed = username.trim();
  if (looksLikeEmail(trimmed)) return { kind: 'email', value: normaliseEmail(trimmed) };
  const phone = normalisePhone(trimmed, variant === 'lu' ? 'LU' : 'BE');
  return phone ? { kind: 'phone', value: phone } : null;
}

/** An account's usernames (emails, then phones, defaults first), masked: enough to recognise, not to harvest. */
export async function maskedUsernames(db: Db, userId: string): Promise<string[]> {
  const [emails, phones] = await Promise.all([
    rankedContacts(db, userId, 'email').execute(),
    rankedContacts(db, userId, 'phone').execute(),
  ]);
  return [...emails.map((row) => maskEmailUsername(row.value)), ...phones.map((row) => maskTarget(row.value))];
}

/** An email shown as a username to recognise among several: the first and last character of its
 * local part and the domain (e***a@example.be); a phone shows its last two digits (maskTarget). */
export function maskEmailUsername(email: string): string {
  const [local, domain] = email.split('@') as [string, string];
  const chars = [...local];
  return chars.length <= 2 ? `${chars[0] ?? ''}***@${domain}` : `${chars[0]}***${chars.at(-1)}@${domain}`;
}

// An account's usernames are its emails and phones: how a typed one is read, the same way by the
// sign-in and the forgotten password.
import type { Variant } from '../../contract/constants.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { looksLikeEmail, normaliseEmail } from '../../contract/rules.ts';

/** The canonical login name: a lower-cased email, or a phone in E.164 (variant's country by default). */
export function loginName(username: string, variant: Variant): { kind: 'email' | 'phone'; value: string } | null {
  const trimmed = username.trim();
  if (looksLikeEmail(trimmed)) return { kind: 'email', value: normaliseEmail(trimmed) };
  const phone = normalisePhone(trimmed, variant === 'lu' ? 'LU' : 'BE');
  return phone ? { kind: 'phone', value: phone } : null;
}

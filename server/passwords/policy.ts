// What a new password must be, whoever chooses it (onboarding, a forgotten or weak password): the
// configured bounds (contract/password.ts, the same check as the browser's checklist) and not a
// common password. The common list is the 49k passwords of @zxcvbn-ts/language-common plus words
// of our own trade; a password counts as common when it is one, or when its letters alone or its
// digits alone are one ("Password1!", "Azerty-2026", "1234567890!a").
import { dictionary } from '@zxcvbn-ts/language-common';
import { passwordProblems, type PasswordPolicy } from '../../contract/password.ts';
import { ApiError } from '../http/errors.ts';

const OUR_WORDS = [
  'tessera',
  'ticket',
  'voucher',
  'cheque',
  'belgium',
  'belgique',
  'belgie',
  'luxembourg',
  'motdepasse',
  'wachtwoord',
  'passwort',
];

let common: Set<string> | null = null;
function commonPasswords(): Set<string> {
  common ??= new Set([...dictionary['passwords-common'], ...OUR_WORDS]);
  return common;
}

export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  const letters = lower.replace(/[^\p{L}]/gu, '');
  const digits = lower.replace(/\D/g, '');
  const list = commonPasswords();
  // Too few letters or digits to be anything but a pattern around them.
  if (letters.length < 3 && digits.length < 3) return true;
  return [lower, letters, digits].some((candidate) => candidate.length >= 3 && list.has(candidate));
}

/** Refuses a new password its confirmation does not repeat. */
export function assertConfirmed(password: string, confirmation: string): void {
  if (password !== confirmation) throw new ApiError('weak_new_password', { problems: ['mismatch'] });
}

/** Refuses a new password that breaks the policy or is common, with the problems the checklist knows. */
export function assertAcceptablePassword(password: string, policy: PasswordPolicy): void {
  const problems = passwordProblems(password, policy);
  if (problems.length > 0) throw new ApiError('weak_new_password', { problems });
  // A code of its own: the person is told why a password that meets every rule is still refused.
  if (isCommonPassword(password)) throw new ApiError('common_password');
}

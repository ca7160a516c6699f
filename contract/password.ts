// Password policy: bounds are configuration (the server sends them to the browser); the browser's
// checklist and the server's check run this same function.

export type PasswordPolicy = {
  minLength: number;
  minLetters: number;
  minDigits: number;
  minSpecial: number;
  maxLength: number;
};

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  minLength: 10,
  minLetters: 1,
  minDigits: 1,
  minSpecial: 1,
  maxLength: 128,
};

/** Problems in checklist order; the keys translate to the spec's messages. */
export type PasswordProblem =
  'required' | 'too_short' | 'too_long' | 'no_letter' | 'no_number' | 'no_special' | 'mismatch';

export const PASSWORD_PROBLEM_MESSAGES: Record<PasswordProblem, string> = {
  required: 'Password is required.',
  too_short: 'Not enough characters',
  too_long: 'Too many characters',
  no_letter: 'No letter',
  no_number: 'No number',
  no_special: 'No special characters',
  mismatch: "Passwords don't match!",
};

function count(value: string, pattern: RegExp): number {
  return value.match(pattern)?.length ?? 0;
}

export function passwordProblems(password: string, policy: PasswordPolicy, confirmation?: string): PasswordProblem[] {
  if (password.length === 0) return ['required'];
  const problems: PasswordProblem[] = [];
  const length = [...password].length;
  if (length < policy.minLength) problems.push('too_short');
  if (length > policy.maxLength) problems.push('too_long');
  if (count(password, /\p{L}/gu) < policy.minLetters) problems.push('no_letter');
  if (count(password, /\p{Nd}/gu) < policy.minDigits) problems.push('no_number');
  if (count(password, /[^\p{L}\p{Nd}\s]/gu) < policy.minSpecial) problems.push('no_special');
  if (confirmation !== undefined && confirmation !== password) problems.push('mismatch');
  return problems;
}

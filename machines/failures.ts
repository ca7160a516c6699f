// How the machines read a failed call: the actor's error is an ApiFailure (contract/api.ts) or,
// for a failure before any answer, anything else. A failure is kept as its stable code only: the
// screen shows `errors.<code>` from the locales, so no machine holds a sentence in any language.
import { isApiFailure } from '../contract/api.ts';
import type { FailureCode } from '../contract/errors.ts';

/** Failures the browser finds itself, with no answer from the server (the CAPTCHA widget's, an empty field). */
export const CLIENT_ERROR_CODES = [
  'captcha_unavailable_server',
  'captcha_unavailable_window',
  'captcha_script_failed',
  'captcha_not_loaded',
  'captcha_element_undefined',
  // A field left empty, named by the form before anything is sent.
  'required_firstname',
  'required_lastname',
  'required_email',
  'required_phone',
  'required_password',
  'required_card_number',
  'required_national_register_number',
  // A code confirmed before it is whole.
  'code_incomplete',
  // A well-formed card number that is not the account's card (the server's wrong answer, said so).
  'card_not_matching',
  // The browser's answer to a passkey's request (passkeyProblemOf).
  'passkey_cancelled',
  'passkey_exists',
  'passkey_unavailable',
  // A passkey's name left empty, or too long (1 to 64 characters).
  'required_passkey_name',
  'passkey_name_too_long',
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];
/** A failure's code: the API's (or no answer, or one this build does not know: contract/errors.ts
 * FailureCode) or the browser's own. A literal given as one is checked: a misspelt code fails `tsc`. */
export type ProblemCode = FailureCode | ClientErrorCode;

/** A failure by its stable code; a throttle says how long to wait (`retryAfter`, seconds), and a
 * sign-in warns when the next wrong password pauses it (`lastAttempt`). */
export type Problem = { code: ProblemCode; retryAfter?: number; lastAttempt?: boolean; retryAt?: number };

/** A code as a problem. A code this app does not know (a newer server's) is kept as it came: the
 * screens fall back to the general error's text for it (`t([errors.<code>, errors.internal_error])`),
 * which spares the first screen the list of every code. */
export function problemFromCode(code: ProblemCode | undefined): Problem {
  return { code: code ?? 'internal_error' };
}

/** The error an actor failed with, for guards and actions that see the machine's whole event union. */
export function errorOf(event: object): unknown {
  return 'error' in event ? event.error : undefined;
}

/** The whole body of the server's answer to a failed call (what it carries besides its code: a
 * merge offer, attempts left), or null for a failure with no answer. */
export function failureBodyOf(event: object): Record<string, unknown> | null {
  const error = errorOf(event);
  return isApiFailure(error) ? error.body : null;
}

export function problemOf(event: object): Problem {
  const error = errorOf(event);
  const problem = problemFromCode(isApiFailure(error) ? error.code : undefined);
  // A wait the server names becomes the instant it ends, so a screen can count down to it.
  const wait = isApiFailure(error) ? error.body.retry_after : undefined;
  return typeof wait === 'number' ? { ...problem, retryAt: Date.now() + wait * 1000 } : problem;
}

/** A passkey's failure: the server's answer, or the browser's refusal, by its name (WebAuthn's
 * DOMException, which @simplewebauthn/browser keeps): NotAllowedError when the person cancelled or
 * the request timed out, InvalidStateError when the authenticator already holds one of the
 * account's passkeys; anything else the browser could not do. */
export function passkeyProblemOf(event: object): Problem {
  const error = errorOf(event);
  if (isApiFailure(error)) return problemOf(event);
  const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : undefined;
  if (name === 'InvalidStateError') return { code: 'passkey_exists' };
  if (name === 'NotAllowedError' || name === 'AbortError') return { code: 'passkey_cancelled' };
  return { code: 'passkey_unavailable' };
}

export function problemCodeOf(event: object): ProblemCode {
  return problemOf(event).code;
}

/** The merge offer that the "already in use" answer to a code carries (contract/fuzzion.ts
 * FuzzionTicket, under `fuzzion`): its payload, or null. `ended` is what a code entry ended with
 * (its output), whose failure keeps the answer's body. */
export function fuzzionOfferOf(ended: object | null | undefined): string | null {
  const body = ended && 'body' in ended ? (ended.body as Record<string, unknown> | undefined) : undefined;
  const payload = (body?.fuzzion as { payload?: unknown } | undefined)?.payload;
  return typeof payload === 'string' && payload !== '' ? payload : null;
}

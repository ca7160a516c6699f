// What a form's SUBMIT carries from the CAPTCHA widget (machines/captcha.ts), and how the flows read
// it. Apart from the widget's machine, so a flow and its page need not load the widget up front.
import type { EventObject } from 'xstate';
import { isApiFailure } from '../contract/api.ts';
import type { CaptchaLevel } from '../contract/schemas.ts';
import { errorOf, type Problem } from './failures.ts';

export type { CaptchaLevel };

/** What a form sends with its SUBMIT: a solution (null when the CAPTCHA is off) or why there is none. */
export type CaptchaAnswer = { token: string | null } | { error: Problem };

export const CAPTCHA_FAILURES = {
  server: { code: 'captcha_unavailable_server' },
  window: { code: 'captcha_unavailable_window' },
  script: { code: 'captcha_script_failed' },
  notLoaded: { code: 'captcha_not_loaded' },
  element: { code: 'captcha_element_undefined' },
} as const satisfies Record<string, Problem>;

/** A form without a CAPTCHA element on the page answers this. */
export const NO_CAPTCHA_ELEMENT: CaptchaAnswer = { error: CAPTCHA_FAILURES.element };

export function isCaptchaError(answer: CaptchaAnswer): answer is { error: Problem } {
  return 'error' in answer;
}

/** Any flow's event: its SUBMIT (or RESEND) carries the widget's answer, the others none. */
export type CaptchaCarrier = EventObject & { captcha?: CaptchaAnswer };

/** For the flows whose SUBMIT carries a CAPTCHA answer: whether it stands in the way, and what it says. */
export const captchaRefused = ({ event }: { event: CaptchaCarrier }) =>
  event.captcha !== undefined && isCaptchaError(event.captcha);
/** Why the answer stands in the way (after `captchaRefused`; null for an event that carries none). */
export const captchaProblem = ({ event }: { event: CaptchaCarrier }): Problem | null =>
  event.captcha && isCaptchaError(event.captcha) ? event.captcha.error : null;
export const captchaToken = ({ event }: { event: CaptchaCarrier }) => {
  const answer = event.captcha;
  return answer && !isCaptchaError(answer) ? answer.token : null;
};

/** The puzzle a refused or failed call says the next try needs: null when it says none, else its
 * level (0 the forms' own; 1 and 2 past an account-wide ceiling of failures, server/captcha/ceilings.ts). */
export function captchaLevelOf(error: unknown): CaptchaLevel | null {
  if (!isApiFailure(error)) return null;
  const { captcha, captcha_level: level } = error.body;
  if (level === 1 || level === 2) return level;
  return captcha === true || error.code === 'captcha_required' || error.code === 'captcha_invalid' ? 0 : null;
}

/** After a failed call, the puzzle the next try needs: the one the answer names, else the one asked
 * for before (a flow's `captchaLevel`, assigned with this). */
export const nextCaptchaLevel = <L extends CaptchaLevel | null>({
  context,
  event,
}: {
  context: { captchaLevel: L };
  event: object;
}): CaptchaLevel | L => captchaLevelOf(errorOf(event)) ?? context.captchaLevel;

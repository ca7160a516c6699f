// The puzzle a form shows once the server wants one with each try: past an account-wide ceiling of
// failures (server/captcha/ceilings.ts) a code, or a password typed again, goes with a solved ALTCHA
// of the level the refusal named. The form's machine keeps that level (machines/captchaAnswer.ts
// captchaLevelOf) and judges the answer its SUBMIT carries (captchaRefused); this gives the form the
// widget at that level and the answer to send. Every such form (the shared code entry, the password
// step-up, the password change, the merge's password proof) uses it; the widget's code is loaded
// only once a form first needs it.
import { lazy, Suspense, useRef, type ReactNode } from 'react';
import { CAPTCHA_FAILURES, type CaptchaAnswer, type CaptchaLevel } from '../../../machines/captchaAnswer.ts';
import type { CaptchaHandle } from './Captcha.tsx';

const Captcha = lazy(() => import('./Captcha.tsx').then((m) => ({ default: m.Captcha })));

export type CeilingCaptcha = {
  /** The widget, or nothing while the server wants no puzzle. */
  widget: ReactNode;
  /** What the submit carries: the widget's answer (or why there is none), nothing while none is wanted. */
  answer(): { captcha?: CaptchaAnswer };
};

/** `level`: the machine's `captchaLevel`, null until the server asks for a puzzle. */
export function useCeilingCaptcha(level: CaptchaLevel | null): CeilingCaptcha {
  const ref = useRef<CaptchaHandle>(null);
  return {
    widget:
      level === null ? null : (
        <Suspense fallback={null}>
          <Captcha ref={ref} level={level} />
        </Suspense>
      ),
    answer: () => (level === null ? {} : { captcha: ref.current?.take() ?? { error: CAPTCHA_FAILURES.notLoaded } }),
  };
}

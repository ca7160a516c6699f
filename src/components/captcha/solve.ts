// Solving the server's ALTCHA challenge in the browser: the proof-of-work code (altcha-lib) loads
// only on the screens that need it. Each failure is one of the widget's failures (machines/captcha.ts).
import { apiFailure } from '../../../contract/api.ts';
import { CaptchaChallenge } from '../../../contract/schemas.ts';
import { CAPTCHA_FAILURES, type CaptchaLevel } from '../../../machines/captchaAnswer.ts';
import { api, parsed } from '../../api/client.ts';

/** A solution of a challenge of `level`: the forms' own (0), or the harder one a refusal named. */
export async function solveCaptcha(level: CaptchaLevel = 0): Promise<string> {
  // PBKDF2 runs in the browser's WebCrypto, which only secure pages (https, localhost) have.
  if (!globalThis.crypto?.subtle) throw apiFailure(0, CAPTCHA_FAILURES.window);
  let altcha: typeof import('./altcha.ts');
  try {
    altcha = await import('./altcha.ts');
  } catch {
    throw apiFailure(0, CAPTCHA_FAILURES.script);
  }
  let challenge: CaptchaChallenge;
  try {
    challenge = await parsed(CaptchaChallenge, () =>
      api.get('captcha/challenge', level > 0 ? { searchParams: { level: String(level) } } : {}).json(),
    );
  } catch {
    throw apiFailure(0, CAPTCHA_FAILURES.server);
  }
  const payload = await altcha.solve(challenge);
  if (!payload) throw apiFailure(0, CAPTCHA_FAILURES.notLoaded);
  return payload;
}

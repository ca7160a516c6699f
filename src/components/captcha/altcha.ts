// The lazily loaded part of the CAPTCHA: altcha-lib's solver with WebCrypto's PBKDF2. The answer is
// ALTCHA's v2 payload, base64 of { challenge, solution }, which the server checks.
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/pbkdf2';
import type { CaptchaChallenge } from '../../../contract/schemas.ts';

export async function solve(challenge: CaptchaChallenge): Promise<string | null> {
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 60_000 });
  return solution ? btoa(JSON.stringify({ challenge, solution })) : null;
}

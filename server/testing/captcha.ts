// Solving the server's ALTCHA challenge in a test, as the browser does.
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { FastifyInstance } from 'fastify';
import { DEVICE } from './harness.ts';

/** Test servers with the CAPTCHA on, and challenges cheap enough to solve in milliseconds. */
export const CAPTCHA_ON = { CAPTCHA: 'true', CAPTCHA_COST: '1', CAPTCHA_MAX_COUNTER: '50' };

/** A solution of a fresh challenge of `level` (0: the forms' own; 1 and 2: past a ceiling). */
export async function solvedCaptcha(app: FastifyInstance, level: 0 | 1 | 2 = 0): Promise<string> {
  const url = level === 0 ? '/api/captcha/challenge' : `/api/captcha/challenge?level=${level}`;
  const challenge = (await app.inject({ method: 'GET', url, headers: DEVICE })).json();
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('the challenge could not be solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { CAPTCHA_FAILURES, answerOf, captchaMachine } from '../machines/captcha.ts';
import { report, walkAll } from './coverage.ts';
import { captchaModel } from './captcha.model.ts';

describe('CAPTCHA widget machine: model', () => {
  it('takes every declared transition, on and off', () => {
    const result = walkAll(captchaModel);
    console.info(report('captcha', result));
    expect(result.missing).toEqual([]);
  });

  it('answers a solution once, then the failure in the way until the next is ready', async () => {
    let solved = 0;
    let fail = false;
    const actor = createActor(
      captchaMachine.provide({
        actors: {
          solve: fromPromise(async () => {
            if (fail) throw apiFailure(0, CAPTCHA_FAILURES.server);
            return `token-${++solved}`;
          }),
        },
      }),
      { input: { enabled: true } },
    ).start();
    expect(answerOf(actor.getSnapshot())).toEqual({ error: CAPTCHA_FAILURES.notLoaded });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answerOf(actor.getSnapshot())).toEqual({ token: 'token-1' });
    fail = true;
    actor.send({ type: 'TAKE' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answerOf(actor.getSnapshot())).toEqual({ error: CAPTCHA_FAILURES.server });
    fail = false;
    actor.send({ type: 'RETRY' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answerOf(actor.getSnapshot())).toEqual({ token: 'token-2' });
  });

  it('answers no solution and never solves when the CAPTCHA is off', () => {
    let calls = 0;
    const actor = createActor(
      captchaMachine.provide({
        actors: {
          solve: fromPromise(async () => {
            calls++;
            return 'x';
          }),
        },
      }),
      { input: { enabled: false } },
    ).start();
    expect(answerOf(actor.getSnapshot())).toEqual({ token: null });
    expect(calls).toBe(0);
  });
});

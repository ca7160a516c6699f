import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { MfaChallengeAnswer, MfaMethodSummary } from '../contract/schemas.ts';
import { mfaCodeMachine } from '../machines/mfaCode.ts';
import { totpRecoveryMachine } from '../machines/totpRecovery.ts';
import { report, walk } from './coverage.ts';

const methods: MfaMethodSummary[] = [
  { id: 1, method: 'email', target: 'm***@example.be', primary: true },
  { id: 2, method: 'totp', primary: false },
];
const inFuture = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const challenge = (resend: boolean): MfaChallengeAnswer => ({ payload: 'p', method: 'email', target: 'm***@example.be', expires_at: inFuture(900), ...(resend ? { resend_at: inFuture(30) } : {}) });

describe('MFA code machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(mfaCodeMachine, {
      input: { methods, loginPayload: 'login' },
      events: (snapshot) => {
        const code = (snapshot as { context: { code: string } }).context.code;
        return [
          { type: 'SELECT', id: 1 }, { type: 'SELECT', id: 2 }, { type: 'SELECT', id: 99 },
          { type: 'TYPE', value: code ? '' : '12345678' }, { type: 'TOGGLE_TRUST' }, { type: 'SUBMIT' }, { type: 'RESEND' }, { type: 'CHANGE_METHOD' },
          { type: 'xstate.done.actor.startChallenge', output: challenge(true) },
          { type: 'xstate.error.actor.startChallenge', error: apiFailure(429, { code: 'resend_too_soon' }) },
          { type: 'xstate.done.actor.verifyCode', output: { access_token: 't' } },
          { type: 'xstate.error.actor.verifyCode', error: apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' }) },
          { type: 'xstate.after.expiry.mfaCode.entering.expiry.running' },
          { type: 'xstate.after.resendCooldown.mfaCode.entering.resend.cooling' },
        ] as never;
      },
      serializeState: ({ value, context }) => {
        const c = context as { code: string; trust: boolean; error: unknown; selected: { id: number } | null; challenge: unknown };
        return JSON.stringify([value, !!c.code, c.trust, !!c.error, c.selected?.id ?? null, !!c.challenge]);
      },
    });
    console.info(report('mfaCode', result));
    expect(result.missing).toEqual([]);
  });
});

describe('MFA code machine: timers on a simulated clock', () => {
  function start(verify: () => Promise<{ access_token?: string }> = async () => ({ access_token: 't' })) {
    const clock = new SimulatedClock();
    const sent: number[] = [];
    const actor = createActor(mfaCodeMachine.provide({
      actors: {
        startChallenge: fromPromise(async ({ input }) => { sent.push(input.mfaId); return challenge(true); }),
        verifyCode: fromPromise(verify),
      },
    }), { input: { methods, loginPayload: 'login' }, clock }).start();
    return { actor, clock, sent };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('shows expired after 900 s and enables resend after 30 s', async () => {
    const { actor, clock } = start();
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    expect(actor.getSnapshot().matches({ entering: { expiry: 'running', resend: 'cooling' } })).toBe(true);
    clock.increment(29_000);
    expect(actor.getSnapshot().matches({ entering: { resend: 'cooling' } })).toBe(true);
    clock.increment(2_000);
    expect(actor.getSnapshot().matches({ entering: { resend: 'ready' } })).toBe(true);
    clock.increment(870_000);
    expect(actor.getSnapshot().matches({ entering: { expiry: 'expired' } })).toBe(true);
  });

  it('resends only when ready, and the timers start again', async () => {
    const { actor, clock, sent } = start();
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    actor.send({ type: 'RESEND' });
    expect(sent).toEqual([1]);
    clock.increment(31_000);
    actor.send({ type: 'RESEND' });
    await settle();
    expect(sent).toEqual([1, 1]);
    expect(actor.getSnapshot().matches({ entering: { resend: 'cooling', expiry: 'running' } })).toBe(true);
  });

  it('has no resend for the authenticator', async () => {
    const { actor, clock, sent } = start();
    actor.send({ type: 'SELECT', id: 2 });
    await settle();
    clock.increment(31_000);
    actor.send({ type: 'RESEND' });
    expect(sent).toEqual([2]);
  });

  it('keeps letters and digits only, submits only a complete code, and shows a wrong code until typing', async () => {
    let calls = 0;
    const { actor } = start(async () => { calls++; throw apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' }); });
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    actor.send({ type: 'TYPE', value: '12 34-56' });
    expect(actor.getSnapshot().context.code).toBe('123456');
    actor.send({ type: 'SUBMIT' });
    expect(calls).toBe(0);
    actor.send({ type: 'TYPE', value: '12345678' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().context.error).toEqual({ code: 'invalid_code' });
    actor.send({ type: 'TYPE', value: '1234567' });
    expect(actor.getSnapshot().context.error).toBeNull();
  });

  it('ends with the token and the trust choice sent', async () => {
    let trusted: boolean | null = null;
    const clock = new SimulatedClock();
    const actor = createActor(mfaCodeMachine.provide({
      actors: {
        startChallenge: fromPromise(async () => challenge(true)),
        verifyCode: fromPromise(async ({ input }) => { trusted = input.trust; return { access_token: 'tok' }; }),
      },
    }), { input: { methods, loginPayload: 'login' }, clock }).start();
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    actor.send({ type: 'TOGGLE_TRUST' });
    actor.send({ type: 'TYPE', value: '12345678' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(trusted).toBe(true);
    expect(actor.getSnapshot().output).toEqual({ method: 'email', accessToken: 'tok', recoveryKeysLeft: null });
  });
});

describe('TOTP recovery machine: model', () => {
  it('takes every declared transition', () => {
    const result = walk(totpRecoveryMachine, {
      input: { keysLeft: 3 },
      events: () => [
        { type: 'SKIP' }, { type: 'REGENERATE' }, { type: 'CONTINUE' }, { type: 'RESET' },
        { type: 'xstate.done.actor.resetAuthenticator' },
        { type: 'xstate.error.actor.resetAuthenticator', error: apiFailure(403, { code: 'step_up_required' }) },
        { type: 'xstate.done.actor.regenerate', output: { recovery_keys: ['A', 'B'] } },
        { type: 'xstate.error.actor.regenerate', error: apiFailure(403, { code: 'step_up_required' }) },
      ] as never,
    });
    console.info(report('totpRecovery', result));
    expect(result.missing).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { codeEntryMachineOf, type NewCode } from '../machines/codeEntry.ts';
import {
  mfaMachine,
  type ChallengeRequest,
  type MfaMemory,
  type MfaVerified,
  type PasskeyAnswer,
} from '../machines/mfa.ts';
import type { MfaMethodSummary, PasskeyOptions } from '../contract/schemas.ts';
import { report, walkAll } from './coverage.ts';
import { cancelled, challenge, methods, mfaModel, passkeyChallenge, signed } from './mfa.model.ts';
import { enterCode, settle } from './events.ts';

describe('MFA code machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkAll(mfaModel);
    console.info(report('mfa', result));
    expect(result.missing).toEqual([]);
  });

  it('asks an account without a second factor for its password, and ends with it as the proof', async () => {
    let typed: string | null = null;
    const actor = createActor(
      mfaMachine.provide({
        actors: {
          confirmPassword: fromPromise(async ({ input }) => {
            typed = input.password;
            if (input.password !== 'right') throw apiFailure(400, { code: 'invalid_credentials' });
          }),
        },
      }),
      { input: { methods: [], loginPayload: null } },
    ).start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(actor.getSnapshot().matches('password')).toBe(true);
    actor.send({ type: 'CONFIRM_PASSWORD', password: 'wrong' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(actor.getSnapshot().context.error).toEqual({ code: 'invalid_credentials' });
    expect(actor.getSnapshot().matches({ password: 'typing' })).toBe(true);
    actor.send({ type: 'CONFIRM_PASSWORD', password: 'right' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(typed).toBe('right');
    expect(actor.getSnapshot().output).toEqual({
      method: 'password',
      mfaId: 0,
      accessToken: null,
      recoveryKeysLeft: null,
    });
  });

  it("past the account's ceiling, asks for the puzzle at the level named and sends its solution with the password", async () => {
    const sent: Array<{ password: string; captcha: string | null }> = [];
    let answer: 'wrong' | 'puzzle' | 'ok' = 'wrong';
    const actor = createActor(
      mfaMachine.provide({
        actors: {
          confirmPassword: fromPromise(async ({ input }) => {
            sent.push(input);
            // The wrong password that crosses the ceiling says so; then even the right one needs the puzzle.
            if (answer === 'wrong')
              throw apiFailure(400, { code: 'invalid_credentials', message: '', captcha: true, captcha_level: 1 });
            if (answer === 'puzzle')
              throw apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 2 });
          }),
        },
      }),
      { input: { methods: [], loginPayload: null } },
    ).start();
    await settle();
    expect(actor.getSnapshot().context.captchaLevel).toBeNull();
    actor.send({ type: 'CONFIRM_PASSWORD', password: 'wrong' });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ captchaLevel: 1, error: { code: 'invalid_credentials' } });
    answer = 'puzzle';
    actor.send({ type: 'CONFIRM_PASSWORD', password: 'right', captcha: { token: 'solved-at-1' } });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ captchaLevel: 2, error: { code: 'captcha_required' } });
    // Without a solution nothing is sent: the widget's problem shows instead.
    actor.send({ type: 'CONFIRM_PASSWORD', password: 'right', captcha: { error: { code: 'captcha_not_loaded' } } });
    await settle();
    expect(sent).toHaveLength(2);
    expect(actor.getSnapshot().context.error).toEqual({ code: 'captcha_not_loaded' });
    expect(actor.getSnapshot().matches({ password: 'typing' })).toBe(true);
    answer = 'ok';
    actor.send({ type: 'CONFIRM_PASSWORD', password: 'right', captcha: { token: 'solved-at-2' } });
    await settle();
    expect(sent).toEqual([
      { password: 'wrong', captcha: null },
      { password: 'right', captcha: 'solved-at-1' },
      { password: 'right', captcha: 'solved-at-2' },
    ]);
    expect(actor.getSnapshot().output).toEqual({
      method: 'password',
      mfaId: 0,
      accessToken: null,
      recoveryKeysLeft: null,
    });
  });
});

describe('MFA code machine: the code entry it starts', () => {
  function start(
    verify: (input: { ticket: string; code: string; remember: boolean }) => Promise<MfaVerified> = async () => ({
      access_token: 't',
    }),
  ) {
    const clock = new SimulatedClock();
    const sent: number[] = [];
    const actor = createActor(
      mfaMachine.provide({
        actors: {
          startChallenge: fromPromise(async ({ input }) => {
            sent.push(input.mfaId);
            return challenge(true);
          }),
          codeEntry: codeEntryMachineOf<MfaVerified, ChallengeRequest>().provide({
            actors: {
              check: fromPromise(({ input }) => verify(input)),
              // A new code: the same request, sent by the entry.
              send: fromPromise(async ({ input }) => {
                sent.push(input.request.mfaId);
                const answer = challenge(true);
                return { ticket: answer.payload, sent: answer };
              }),
            },
          }),
        },
      }),
      { input: { methods, loginPayload: 'login' }, clock },
    ).start();
    const entry = () => actor.getSnapshot().children.codeEntry!;
    return { actor, clock, sent, entry };
  }

  it('shows expired after 900 s and enables resend after 30 s', async () => {
    const { actor, clock, entry } = start();
    await settle(); // nothing kept from before
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { expiry: 'running', resend: 'cooling' } }),
    ).toBe(true);
    clock.increment(29_000);
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { resend: 'cooling' } }),
    ).toBe(true);
    clock.increment(2_000);
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { resend: 'ready' } }),
    ).toBe(true);
    clock.increment(870_000);
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { expiry: 'expired' } }),
    ).toBe(true);
  });

  it('resends only when ready, and the timers start again', async () => {
    const { actor, clock, sent, entry } = start();
    await settle(); // nothing kept from before
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    entry().send({ type: 'RESEND' });
    expect(sent).toEqual([1]);
    clock.increment(31_000);
    entry().send({ type: 'RESEND' });
    await settle();
    expect(sent).toEqual([1, 1]);
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { resend: 'cooling', expiry: 'running' } }),
    ).toBe(true);
  });

  it('has no resend and no countdown for the authenticator', async () => {
    const { actor, clock, sent, entry } = start();
    await settle(); // nothing kept from before
    actor.send({ type: 'SELECT', id: 2 });
    await settle();
    clock.increment(31_000);
    entry().send({ type: 'RESEND' });
    expect(sent).toEqual([2]);
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { expiry: 'untimed', resend: 'unavailable' } }),
    ).toBe(true);
  });

  it('keeps letters and digits only, submits only a complete code, and shows a wrong code until typing', async () => {
    let calls = 0;
    const { actor, entry } = start(async () => {
      calls++;
      throw apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' });
    });
    await settle(); // nothing kept from before
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    entry().send({ type: 'TYPE', value: '12 34-56' });
    expect(entry().getSnapshot().context.code).toBe('123456');
    entry().send({ type: 'SUBMIT' });
    expect(calls).toBe(0);
    await enterCode(entry(), '12345678');
    expect(entry().getSnapshot().context.error).toEqual({ code: 'invalid_code' });
    entry().send({ type: 'TYPE', value: '1234567' });
    expect(entry().getSnapshot().context.error).toBeNull();
  });

  it('ends with the token and the trust choice sent', async () => {
    let trusted: boolean | null = null;
    const { actor, entry } = start(async (input) => {
      trusted = input.remember;
      return { access_token: 'tok' };
    });
    await settle(); // nothing kept from before
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    entry().send({ type: 'TOGGLE_REMEMBER' });
    await enterCode(entry(), '12345678');
    expect(trusted).toBe(true);
    expect(actor.getSnapshot().output).toEqual({
      method: 'email',
      mfaId: 1,
      accessToken: 'tok',
      recoveryKeysLeft: null,
    });
  });

  it('keeps the code screen, with the reason, when a new code cannot be sent', async () => {
    let fail = false;
    const clock = new SimulatedClock();
    const startChallenge = async () => {
      if (fail) throw apiFailure(429, { code: 'resend_too_soon' });
      return challenge(true);
    };
    const actor = createActor(
      mfaMachine.provide({
        actors: {
          startChallenge: fromPromise(startChallenge),
          codeEntry: codeEntryMachineOf<MfaVerified, ChallengeRequest>().provide({
            actors: {
              send: fromPromise(async (): Promise<NewCode> => {
                const answer = await startChallenge();
                return { ticket: answer.payload, sent: answer };
              }),
            },
          }),
        },
      }),
      { input: { methods, loginPayload: 'login' }, clock },
    ).start();
    await settle(); // nothing kept from before
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    fail = true;
    clock.increment(31_000);
    actor.getSnapshot().children.codeEntry!.send({ type: 'RESEND' });
    await settle();
    expect(actor.getSnapshot().value).toBe('entering');
    expect(actor.getSnapshot().children.codeEntry!.getSnapshot().context.error).toEqual({ code: 'resend_too_soon' });
  });

  it("sends a phone's code another way from its code screen: a new send, the screen the code's meanwhile", async () => {
    const phone: MfaMethodSummary = { id: 4, method: 'sms', target: '+32 *** ** 22', primary: true };
    const requests: ChallengeRequest[] = [];
    let answer: () => Promise<ReturnType<typeof challenge>> = async () => ({ ...challenge(true), method: 'sms' });
    let release = () => {};
    const actor = createActor(
      mfaMachine.provide({
        actors: {
          startChallenge: fromPromise(async ({ input }) => {
            requests.push(input);
            if (requests.length === 2) await new Promise<void>((resolve) => (release = resolve));
            return answer();
          }),
        },
      }),
      { input: { methods: [phone], loginPayload: 'login' } },
    ).start();
    await settle();
    actor.send({ type: 'SELECT', id: 4, channel: 'whatsapp' });
    await settle();
    expect(actor.getSnapshot().matches('entering')).toBe(true);
    // The way it went already, or another method: nothing goes.
    actor.send({ type: 'SELECT', id: 4, channel: 'whatsapp' });
    actor.send({ type: 'SELECT', id: 1, channel: 'call' });
    expect(requests).toHaveLength(1);
    actor.send({ type: 'SELECT', id: 4, channel: 'call' });
    // While the call goes, the code screen stays (the code before it too).
    expect(actor.getSnapshot().matches('requesting')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ channel: 'call', challenge: { payload: 'p' } });
    release();
    await settle();
    expect(requests.map((r) => r.channel)).toEqual(['whatsapp', 'call']);
    expect(actor.getSnapshot().matches('entering')).toBe(true);
    // Refused (too soon): back to the choice, saying why, with no code screen to go Forward to.
    answer = async () => {
      throw apiFailure(429, { code: 'resend_too_soon' });
    };
    actor.send({ type: 'SELECT', id: 4, channel: 'sms' });
    await settle();
    expect(actor.getSnapshot().matches('choosing')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ error: { code: 'resend_too_soon' }, challenge: null });
  });
});

describe('MFA code machine: a reload', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  const kept = (loginPayload: string, expiresAt: number) => ({
    loginPayload,
    selected: methods[0]!,
    channel: null,
    challenge: { payload: 'p', sent: { target: 'm***@example.be', expiresAt, resendAt: null } },
  });
  const started = (entry: 'methods' | 'code', memory: unknown) =>
    createActor(
      mfaMachine.provide({
        actors: { recall: fromPromise(async (): Promise<MfaMemory | null> => memory as MfaMemory | null) },
      }),
      { input: { methods, loginPayload: 'login', entry } },
    ).start();

  it('on the code screen of the same sign-in resumes the code sent, while it lives', async () => {
    const actor = started('code', kept('login', Date.now() + 60_000));
    await settle();
    expect(actor.getSnapshot().value).toBe('entering');
    expect(actor.getSnapshot().children.codeEntry!.getSnapshot().context).toMatchObject({
      ticket: 'p',
      sent: { target: 'm***@example.be' },
    });
  });

  it('goes to the methods for a code that expired, another sign-in, or a reload on the methods', async () => {
    for (const [entry, memory] of [
      ['code', kept('login', Date.now() - 1)],
      ['code', kept('other', Date.now() + 60_000)],
      ['methods', kept('login', Date.now() + 60_000)],
    ] as const) {
      const actor = started(entry, memory);
      await settle();
      expect(actor.getSnapshot().value).toBe('choosing');
    }
  });
});

describe('MFA code machine: a passkey', () => {
  /** The machine with the browser and the server as the test says: each call is noted. */
  function start(
    options: {
      methods?: MfaMethodSummary[];
      loginPayload?: string | null;
      noPasskeyHere?: boolean;
      ask?: (options: PasskeyOptions) => Promise<typeof signed>;
      check?: (answer: PasskeyAnswer) => Promise<MfaVerified>;
    } = {},
  ) {
    const calls = { started: [] as ChallengeRequest[], asked: [] as PasskeyOptions[], checked: [] as PasskeyAnswer[] };
    const actor = createActor(
      mfaMachine.provide({
        actors: {
          startChallenge: fromPromise(async ({ input }) => {
            calls.started.push(input);
            return input.mfaId === 3 ? passkeyChallenge : challenge(true);
          }),
          askPasskey: fromPromise(async ({ input }) => {
            calls.asked.push(input);
            return (options.ask ?? (async () => signed))(input);
          }),
          checkPasskey: fromPromise(async ({ input }) => {
            calls.checked.push(input);
            return (options.check ?? (async () => ({ access_token: 'tok' })))(input);
          }),
        },
        guards: { noPasskeyHere: () => options.noPasskeyHere ?? false },
      }),
      {
        input: {
          methods: options.methods ?? methods,
          loginPayload: options.loginPayload === undefined ? 'login' : options.loginPayload,
        },
      },
    ).start();
    return { actor, calls };
  }

  it('signs in with no code typed: its challenge, the browser signs it, the server checks it with the trust chosen first', async () => {
    const { actor, calls } = start();
    await settle();
    actor.send({ type: 'TOGGLE_REMEMBER' });
    actor.send({ type: 'SELECT', id: 3 });
    await settle();
    expect(calls.started).toEqual([{ mfaId: 3, loginPayload: 'login', channel: null }]);
    expect(calls.asked).toEqual([passkeyChallenge.passkey]);
    expect(calls.checked).toEqual([{ payload: 'pk', credential: signed, remember: true }]);
    expect(actor.getSnapshot().children.codeEntry).toBeUndefined();
    expect(actor.getSnapshot().output).toEqual({
      method: 'passkey',
      mfaId: 3,
      accessToken: 'tok',
      recoveryKeysLeft: null,
    });
  });

  it('comes back to the choice when the person cancels, saying so; choosing the passkey again asks anew', async () => {
    let refuse = true;
    const { actor, calls } = start({
      ask: async () => {
        if (refuse) throw cancelled;
        return signed;
      },
    });
    await settle();
    actor.send({ type: 'SELECT', id: 3 });
    await settle();
    expect(actor.getSnapshot().value).toBe('choosing');
    expect(actor.getSnapshot().context).toMatchObject({ error: { code: 'passkey_cancelled' }, passkey: { id: 3 } });
    expect(calls.checked).toEqual([]);
    refuse = false;
    actor.send({ type: 'SELECT', id: 3 });
    await settle();
    expect(calls.started).toHaveLength(2);
    expect(actor.getSnapshot().output).toMatchObject({ method: 'passkey', mfaId: 3 });
  });

  it("names the browser's other refusals, and the server's, back on the choice where another method can be chosen", async () => {
    const failures: Array<[() => Promise<never>, string]> = [
      [async () => Promise.reject(Object.assign(new Error('held'), { name: 'InvalidStateError' })), 'passkey_exists'],
      [async () => Promise.reject(new TypeError('no WebAuthn here')), 'passkey_unavailable'],
    ];
    for (const [ask, code] of failures) {
      const { actor } = start({ ask });
      await settle();
      actor.send({ type: 'SELECT', id: 3 });
      await settle();
      expect(actor.getSnapshot().context.error).toEqual({ code });
    }
    for (const [status, code] of [
      [422, 'passkey_refused'],
      [410, 'code_expired'],
    ] as const) {
      const { actor } = start({
        check: async () => {
          throw apiFailure(status, { code, attempts_left: 4 });
        },
      });
      await settle();
      actor.send({ type: 'SELECT', id: 3 });
      await settle();
      expect(actor.getSnapshot().value).toBe('choosing');
      expect(actor.getSnapshot().context.error).toEqual({ code });
      // Another method is one choice away: its code screen, the passkey's failure gone.
      actor.send({ type: 'SELECT', id: 1 });
      await settle();
      expect(actor.getSnapshot().value).toBe('entering');
      expect(actor.getSnapshot().context).toMatchObject({ error: null, passkey: null, selected: { id: 1 } });
    }
  });

  it('starts the code entry with the trust chosen before a code', async () => {
    const { actor } = start();
    await settle();
    actor.send({ type: 'TOGGLE_REMEMBER' });
    actor.send({ type: 'SELECT', id: 1 });
    await settle();
    expect(actor.getSnapshot().children.codeEntry!.getSnapshot().context.remember).toBe(true);
  });

  it('offers no passkey where the browser cannot use one, and never the password in their place', async () => {
    const { actor, calls } = start({ noPasskeyHere: true });
    await settle();
    expect(actor.getSnapshot().context.methods.map((m) => m.id)).toEqual([1, 2]);
    actor.send({ type: 'SELECT', id: 3 });
    await settle();
    expect(calls.started).toEqual([]);
    expect(actor.getSnapshot().value).toBe('choosing');

    // An account whose only second factor is a passkey: nothing to offer, said by the screen (not
    // the password, which stands in only for an account without a second factor).
    const onlyPasskey = [methods[2]!];
    for (const loginPayload of ['login', null]) {
      const { actor: only } = start({ noPasskeyHere: true, methods: onlyPasskey, loginPayload });
      await settle();
      expect(only.getSnapshot().value).toBe('choosing');
      expect(only.getSnapshot().context).toMatchObject({ methods: [], passkeysHidden: true });
    }
  });
});

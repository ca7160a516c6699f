import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { CAPTCHA_FAILURES, type CaptchaAnswer } from '../machines/captcha.ts';
import { loginMachine, type PasskeyAnswer } from '../machines/login.ts';
import { report, walkFrom } from './coverage.ts';
import { settle } from './events.ts';
import { failure, loginModel, signedPasskey } from './login.model.ts';

describe('login machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(loginModel);
    console.info(report('login', result));
    expect(result.missing).toEqual([]);
  });
});

describe('login machine: behaviour', () => {
  const run = (answer: () => Promise<unknown>) => {
    const actor = createActor(loginMachine.provide({ actors: { submitLogin: fromPromise(answer) } }), {
      input: { mode: 'email' },
    }).start();
    actor.send({ type: 'CHANGE', field: 'username', value: ' emma@example.be ' });
    actor.send({ type: 'CHANGE', field: 'password', value: 'secret' });
    actor.send({ type: 'SUBMIT' });
    return actor;
  };

  it('does not submit with an empty field', () => {
    const actor = createActor(loginMachine, { input: { mode: 'email' } }).start();
    actor.send({ type: 'SUBMIT' });
    expect(actor.getSnapshot().value).toBe('editing');
  });

  it.each([
    [400, 'invalid_credentials'],
    [429, 'too_many_attempts'],
    [500, 'internal_error'],
    [0, 'internal_error'],
    [422, 'validation_failed'],
  ])('shows the error of a %i, by its code, until the user types again', async (status, code) => {
    const actor = run(async () => {
      throw failure(status, status === 422 ? { code: 'validation_failed', message: 'Server says no' } : {});
    });
    await settle();
    expect(actor.getSnapshot().context.error).toEqual({ code });
    actor.send({ type: 'CHANGE', field: 'password', value: 'x' });
    expect(actor.getSnapshot().context.error).toBeNull();
  });

  it('sends the trimmed username', async () => {
    let sent: unknown;
    const actor = createActor(
      loginMachine.provide({
        actors: {
          submitLogin: fromPromise(async ({ input }) => {
            sent = input;
            return {};
          }),
        },
      }),
      { input: { mode: 'phone' } },
    ).start();
    actor.send({ type: 'CHANGE', field: 'username', value: ' 0470 12 34 56 ' });
    actor.send({ type: 'CHANGE', field: 'password', value: 'pw' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(sent).toEqual({ username: '0470 12 34 56', password: 'pw', captcha: null });
    expect(actor.getSnapshot().output).toEqual({ kind: 'success', by: 'password' });
  });

  it('ends with the MFA payload and methods on 401 mfa_required', async () => {
    const methods = [{ id: 1, method: 'email', target: 'e***@example.be' }];
    const actor = run(async () => {
      throw failure(401, { code: 'mfa_required', message: '', mfa: { payload: 'pl', methods } });
    });
    await settle();
    expect(actor.getSnapshot().output).toEqual({ kind: 'mfa', payload: 'pl', methods });
  });

  it('ends with the weak-password ticket on 403 weak_password', async () => {
    const actor = run(async () => {
      throw failure(403, { code: 'weak_password', message: '', payload: 'ticket' });
    });
    await settle();
    expect(actor.getSnapshot().output).toEqual({ kind: 'weakPassword', payload: 'ticket' });
  });

  it('asks for the CAPTCHA once the server says so, and sends its solution with every attempt after', async () => {
    const sent: Array<string | null> = [];
    const actor = createActor(
      loginMachine.provide({
        actors: {
          submitLogin: fromPromise(async ({ input }) => {
            sent.push(input.captcha);
            throw failure(400, { code: 'invalid_credentials', message: 'Invalid username/password.', captcha: true });
          }),
        },
      }),
      { input: { mode: 'email' } },
    ).start();
    const attempt = async (captcha?: CaptchaAnswer) => {
      actor.send({ type: 'CHANGE', field: 'username', value: 'emma@example.be' });
      actor.send({ type: 'CHANGE', field: 'password', value: 'wrong' });
      actor.send(captcha ? { type: 'SUBMIT', captcha } : { type: 'SUBMIT' });
      await settle();
    };
    await attempt({ token: 'ignored' });
    expect(actor.getSnapshot().context.captchaNeeded).toBe(true);
    await attempt({ error: CAPTCHA_FAILURES.notLoaded });
    expect(actor.getSnapshot().context.error).toEqual(CAPTCHA_FAILURES.notLoaded);
    await attempt({ token: 'solved' });
    expect(sent).toEqual([null, 'solved']);
  });

  it('keeps the password when the server wants a robot check, resubmits once solved, and shows a second refusal', async () => {
    const sent: Array<{ password: string; captcha: string | null }> = [];
    const actor = createActor(
      loginMachine.provide({
        actors: {
          submitLogin: fromPromise(async ({ input }) => {
            sent.push({ password: input.password, captcha: input.captcha });
            throw failure(400, { code: 'captcha_required', message: '', captcha: true });
          }),
        },
      }),
      { input: { mode: 'email' } },
    ).start();
    actor.send({ type: 'CHANGE', field: 'username', value: 'emma@example.be' });
    actor.send({ type: 'CHANGE', field: 'password', value: 'right-one' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    // Nothing contradicts the widget: no error, the password kept, a resubmit waiting.
    expect(actor.getSnapshot().context).toMatchObject({
      error: null,
      password: 'right-one',
      captchaNeeded: true,
      resubmitWhenSolved: true,
    });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved' }, automatic: true });
    await settle();
    expect(sent).toEqual([
      { password: 'right-one', captcha: null },
      { password: 'right-one', captcha: 'solved' },
    ]);
    // Refused again after the automatic one: said, and not sent a third time by itself.
    expect(actor.getSnapshot().context).toMatchObject({
      error: { code: 'captcha_required' },
      password: 'right-one',
      resubmitWhenSolved: false,
    });
  });

  it("takes the harder puzzle the server names past the account's ceiling, and keeps it", async () => {
    let answer: Record<string, unknown> = { code: 'invalid_credentials', message: '', captcha: true, captcha_level: 1 };
    const actor = createActor(
      loginMachine.provide({
        actors: {
          submitLogin: fromPromise<unknown, { username: string; password: string; captcha: string | null }>(
            async () => {
              throw failure(400, answer);
            },
          ),
        },
      }),
      { input: { mode: 'email' } },
    ).start();
    actor.send({ type: 'CHANGE', field: 'username', value: 'emma@example.be' });
    actor.send({ type: 'CHANGE', field: 'password', value: 'wrong' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ captchaNeeded: true, captchaLevel: 1 });
    answer = { code: 'captcha_required', message: '', captcha: true, captcha_level: 2 };
    actor.send({ type: 'CHANGE', field: 'password', value: 'right-one' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-1' } });
    await settle();
    // Refused for an easier puzzle than now needed: the widget goes to the top level, the password stays.
    expect(actor.getSnapshot().context).toMatchObject({
      captchaLevel: 2,
      password: 'right-one',
      resubmitWhenSolved: true,
    });
    answer = { code: 'invalid_credentials', message: '' };
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-2' }, automatic: true });
    await settle();
    expect(actor.getSnapshot().context.captchaLevel).toBe(2);
  });

  it('carries how long a pause lasts, and the warning before the last try', async () => {
    const paused = run(async () => {
      throw failure(429, { code: 'too_many_attempts', message: '', retry_after: 840 });
    });
    await settle();
    expect(paused.getSnapshot().context.error).toEqual({ code: 'too_many_attempts', retryAfter: 840 });
    const warned = run(async () => {
      throw failure(400, { code: 'invalid_credentials', message: '', last_attempt: true });
    });
    await settle();
    expect(warned.getSnapshot().context.error).toEqual({ code: 'invalid_credentials', lastAttempt: true });
  });

  it('starts with the address it is given, keeps it on a route within its mode, and starts empty in the other', () => {
    const typed: string[] = [];
    const actor = createActor(
      loginMachine.provide({
        actions: {
          typed: (_, { value }) => {
            typed.push(value);
          },
        },
      }),
      { input: { mode: 'email', username: 'rita@example.be' } },
    ).start();
    expect(actor.getSnapshot().context.username).toBe('rita@example.be');
    actor.send({ type: 'SET_MODE', mode: 'email' });
    expect(actor.getSnapshot().context.username).toBe('rita@example.be');
    actor.send({ type: 'CHANGE', field: 'username', value: 'rita.reset@example.be' });
    actor.send({ type: 'CHANGE', field: 'password', value: 'not told to anyone' });
    expect(typed).toEqual(['rita.reset@example.be']);
    actor.send({ type: 'SET_MODE', mode: 'phone' });
    expect(actor.getSnapshot().context.username).toBe('');
  });

  it('says a malformed email address is invalid before sending anything; a phone number is not judged so', async () => {
    let sent = 0;
    const actor = createActor(
      loginMachine.provide({
        actors: {
          submitLogin: fromPromise(async (): Promise<unknown> => {
            sent++;
            return { access_token: 't' };
          }),
        },
      }),
      { input: { mode: 'email' } },
    ).start();
    actor.send({ type: 'CHANGE', field: 'username', value: 'emma.peeters@example' });
    actor.send({ type: 'CHANGE', field: 'password', value: 'pw' });
    actor.send({ type: 'SUBMIT' });
    expect(actor.getSnapshot().context.error).toEqual({ code: 'invalid_email' });
    expect(sent).toBe(0);
    const phone = createActor(
      loginMachine.provide({
        actors: {
          submitLogin: fromPromise(async (): Promise<unknown> => {
            sent++;
            return { access_token: 't' };
          }),
        },
      }),
      { input: { mode: 'phone' } },
    ).start();
    phone.send({ type: 'CHANGE', field: 'username', value: '0470 12 34 56' });
    phone.send({ type: 'CHANGE', field: 'password', value: 'pw' });
    phone.send({ type: 'SUBMIT' });
    await settle();
    expect(sent).toBe(1);
  });
});

describe('login machine: passkeys', () => {
  const start = (
    passkeySignIn: () => Promise<unknown>,
    askPasskey: () => Promise<PasskeyAnswer> = async () => signedPasskey,
  ) => {
    const signalled: unknown[] = [];
    const actor = createActor(
      loginMachine.provide({
        actors: { passkeySignIn: fromPromise(passkeySignIn), askPasskey: fromPromise(askPasskey) },
        actions: { signalUnknownPasskey: (_, params) => signalled.push(params) },
      }),
      { input: { mode: 'email' } },
    ).start();
    return { actor, signalled };
  };

  it('has no passkey button until the browser says it can sign in with one here', async () => {
    const { actor } = start(async () => ({}));
    actor.send({ type: 'PASSKEY' });
    expect(actor.getSnapshot().value).toBe('editing');
    actor.send({ type: 'PASSKEY_SUPPORT', signIn: true });
    actor.send({ type: 'PASSKEY' });
    await settle();
    expect(actor.getSnapshot().output).toEqual({ kind: 'success', by: 'passkey' });
  });

  it('signs in with a passkey picked from the suggestions, with no password', async () => {
    let sent: unknown;
    const { actor } = start(async () => {
      sent = signedPasskey;
      return {};
    });
    actor.send({ type: 'PASSKEY_PICKED', answer: signedPasskey });
    await settle();
    expect(sent).toBe(signedPasskey);
    expect(actor.getSnapshot().output).toEqual({ kind: 'success', by: 'passkey' });
  });

  it('tells the password manager of a passkey the server does not know, and says so', async () => {
    const { actor, signalled } = start(async () => {
      throw failure(422, { code: 'passkey_unknown', message: '' });
    });
    actor.send({ type: 'PASSKEY_PICKED', answer: signedPasskey });
    await settle();
    expect(signalled).toEqual([{ rpId: 'account.localhost', credentialId: signedPasskey.credential.id }]);
    expect(actor.getSnapshot().value).toBe('editing');
    expect(actor.getSnapshot().context.error).toEqual({ code: 'passkey_unknown' });
  });

  it("says nothing when the person closes the browser's dialog, and names any other refusal", async () => {
    const refusal = (name: string) => async () => {
      throw Object.assign(new Error(name), { name });
    };
    for (const [name, error] of [
      ['NotAllowedError', null],
      ['SecurityError', { code: 'passkey_unavailable' }],
    ] as const) {
      const { actor } = start(async () => ({}), refusal(name));
      actor.send({ type: 'PASSKEY_SUPPORT', signIn: true });
      actor.send({ type: 'PASSKEY' });
      await settle();
      expect(actor.getSnapshot().value).toBe('editing');
      expect(actor.getSnapshot().context.error).toEqual(error);
    }
  });
});

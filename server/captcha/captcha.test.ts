import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';

const kinds = await databaseKinds();

describe.each(kinds)('ALTCHA on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, CAPTCHA_ON);
  });
  afterAll(async () => server?.stop());
  afterEach(() => {
    vi.useRealTimers();
  });

  const forgot = (captcha?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers: DEVICE,
      payload: { username: 'nobody@example.be', ...(captcha !== undefined ? { captcha } : {}) },
    });
  const username = (captcha?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-username',
      headers: DEVICE,
      payload: { cardNumber: '5065000000000002', ...(captcha !== undefined ? { captcha } : {}) },
    });

  it('says so in the configuration and hands out signed PBKDF2 challenges', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/config', headers: DEVICE })).json().captcha).toBe(true);
    const challenge = (
      await server.app.inject({ method: 'GET', url: '/api/captcha/challenge', headers: DEVICE })
    ).json();
    expect(challenge.parameters).toMatchObject({ algorithm: 'PBKDF2/SHA-256', cost: 1 });
    expect(challenge.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hands out harder challenges on request, their level signed with them', async () => {
    const at = async (level: string) =>
      (
        await server.app.inject({ method: 'GET', url: `/api/captcha/challenge?level=${level}`, headers: DEVICE })
      ).json();
    expect((await at('0')).parameters).toMatchObject({ cost: 1, data: { level: 0 } });
    expect((await at('1')).parameters).toMatchObject({ cost: 8, data: { level: 1 } });
    expect((await at('2')).parameters).toMatchObject({ cost: 70, data: { level: 2 } });
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/captcha/challenge?level=3', headers: DEVICE })).json().code,
    ).toBe('validation_failed');
    // A harder solution does for an easier form; a level written into an easy one breaks its signature.
    expect((await username(await solvedCaptcha(server.app, 2))).statusCode).toBe(200);
    const forged = JSON.parse(Buffer.from(await solvedCaptcha(server.app, 0), 'base64').toString());
    forged.challenge.parameters.data.level = 2;
    expect((await username(Buffer.from(JSON.stringify(forged)).toString('base64'))).json().code).toBe(
      'captcha_invalid',
    );
  });

  it('refuses the forgotten-password and -username forms without a solution, or with a wrong one', async () => {
    for (const send of [forgot, username]) {
      expect((await send()).json()).toMatchObject({
        code: 'captcha_required',
        message: 'Please confirm that you are not a robot.',
      });
      expect((await send('not base64 json')).json().code).toBe('captcha_invalid');
      const solved = JSON.parse(Buffer.from(await solvedCaptcha(server.app), 'base64').toString());
      const key = solved.solution.derivedKey as string;
      solved.solution.derivedKey = (key[0] === 'a' ? 'b' : 'a') + key.slice(1); // a key nobody worked for
      expect((await send(Buffer.from(JSON.stringify(solved)).toString('base64'))).json().code).toBe('captcha_invalid');
      solved.solution.derivedKey = key;
      solved.challenge.parameters.cost = 2; // tampered: the signature no longer matches
      expect((await send(Buffer.from(JSON.stringify(solved)).toString('base64'))).json().code).toBe('captcha_invalid');
    }
  });

  it('takes a right solution once', async () => {
    const captcha = await solvedCaptcha(server.app);
    expect((await forgot(captcha)).statusCode).toBe(200);
    expect((await forgot(captcha)).json().code).toBe('captcha_invalid');
    const other = await solvedCaptcha(server.app);
    expect((await username(other)).json()).toEqual({ usernames: ['e***s@example.be', '+32 ••• •• •• 56'] });
    expect((await username(other)).json().code).toBe('captcha_invalid');
  });

  it('asks for a robot check at sign-in after two failures for the account from this address, known or not', async () => {
    const login = (username: string, password: string, captcha?: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: DEVICE,
        payload: { username, password, ...(captcha ? { captcha } : {}) },
      });
    for (const username of ['claire.dubois@example.com', 'nobody.at.all@example.be']) {
      expect((await login(username, 'wrong-1')).json()).toEqual({
        code: 'invalid_credentials',
        message: 'Invalid username/password.',
      });
      expect((await login(username, 'wrong-2')).json()).toMatchObject({ code: 'invalid_credentials', captcha: true });
      // Even the right password waits for the robot check now.
      expect((await login(username, DEMO_PASSWORD)).json()).toMatchObject({ code: 'captcha_required', captcha: true });
      expect((await login(username, DEMO_PASSWORD, 'garbage')).json()).toMatchObject({
        code: 'captcha_invalid',
        captcha: true,
      });
    }
    const signedIn = await login('claire.dubois@example.com', DEMO_PASSWORD, await solvedCaptcha(server.app));
    expect(signedIn.statusCode).toBe(200);
    // The owner got in from here: the pair's failures, and the check, are forgotten.
    expect((await login('claire.dubois@example.com', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  it('refuses a solution whose challenge expired', async () => {
    const captcha = await solvedCaptcha(server.app);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 601_000);
    expect((await forgot(captcha)).json().code).toBe('captcha_invalid');
  });
});

describe('ALTCHA turned off by configuration', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { CAPTCHA: 'false' });
  });
  afterAll(async () => server?.stop());

  it('lets the forms through without a solution and hands out no challenge', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/config', headers: DEVICE })).json().captcha).toBe(
      false,
    );
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/captcha/challenge', headers: DEVICE })).statusCode,
    ).toBe(404);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers: DEVICE,
      payload: { username: 'nobody@example.be' },
    });
    expect(res.statusCode).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { isCommonPassword } from '../passwords/policy.ts';

const kinds = await databaseKinds();
const wout = DEMO_USERS.find((u) => u.key === 'weak')!;

describe.each(kinds)('renewing a weak password on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  const login = (password: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: DEVICE,
      payload: { username: wout.email, password },
    });
  const reset = (payload: string, password: string, confirmation = password) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/reset-password',
      headers: DEVICE,
      payload: { payload, password, confirmation },
    });

  it('takes a new password that meets the rules, once, and signs in with it', async () => {
    const ticket = (await login(DEMO_PASSWORD)).json().payload as string;
    expect((await reset(ticket, 'short1!')).json()).toMatchObject({
      code: 'weak_new_password',
      problems: ['too_short'],
    });
    expect((await reset(ticket, 'Another-pass-2026', 'different')).json()).toMatchObject({ problems: ['mismatch'] });
    expect((await reset(ticket, 'Password-2026!!')).json()).toMatchObject({ code: 'common_password' });
    expect((await reset(ticket, DEMO_PASSWORD)).json().code).toBe('password_reused');
    expect((await reset(ticket, 'Brand-new-pass-77')).statusCode).toBe(204);
    // The ticket is spent; the old password is gone; the new one signs in.
    expect((await reset(ticket, 'Brand-new-pass-88')).statusCode).toBe(401);
    expect((await login(DEMO_PASSWORD)).statusCode).toBe(400);
    const signedIn = await login('Brand-new-pass-77');
    expect(signedIn.statusCode).toBe(200);
    const user = await server.app.inject({
      method: 'GET',
      url: '/api/user',
      headers: { ...DEVICE, authorization: `Bearer ${signedIn.json().access_token}` },
    });
    expect(user.json().data.password_status).toBe(0);
  });

  it('refuses an unknown ticket', async () => {
    expect((await reset('x'.repeat(43), 'Brand-new-pass-99')).statusCode).toBe(401);
  });
});

describe.each(kinds)('a configured password policy on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      PASSWORD_MIN_LENGTH: '16',
      PASSWORD_MIN_SPECIAL: '2',
      PASSWORD_HISTORY: '1',
    });
  });
  afterAll(async () => server?.stop());

  it('is announced to the browser and enforced by the server', async () => {
    const config = (await server.app.inject({ method: 'GET', url: '/api/config', headers: DEVICE })).json();
    expect(config.passwordPolicy).toEqual({
      minLength: 16,
      minLetters: 1,
      minDigits: 1,
      minSpecial: 2,
      maxLength: 128,
    });
    const ticket = (await passwordSignIn(server, wout.email, DEMO_PASSWORD)).json().payload as string;
    const reset = (password: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/user/reset-password',
        headers: DEVICE,
        payload: { payload: ticket, password, confirmation: password },
      });
    // Long enough under the default rules, not under these.
    expect((await reset('Brand-new-pass7')).json()).toMatchObject({
      code: 'weak_new_password',
      problems: ['too_short'],
    });
    expect((await reset('Brandnewpassword-77')).json()).toMatchObject({
      code: 'weak_new_password',
      problems: ['no_special'],
    });
    expect((await reset('Brand-new-pass-word-77')).statusCode).toBe(204);
  });
});

describe('common passwords', () => {
  it.each([
    'Password1!',
    'AZERTY-123',
    'Tessera2026!',
    'wachtwoord!!1',
    'Michael-1987!',
    '1234567890!a',
    'Qwertyuiop-9',
  ])('refuses %s', (p) => expect(isCommonPassword(p)).toBe(true));
  it.each(['Brand-new-pass-77', 'Correct-Horse-Battery', 'Rita-new-pass-01', 'Lux-new-pass-2026'])('accepts %s', (p) =>
    expect(isCommonPassword(p)).toBe(false),
  );
});

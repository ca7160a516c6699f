// Second-factor guessing from the attacker's side: someone who holds the password guesses
// authenticator codes from many addresses. Each address is stopped after its own ten (a 429 for it
// alone); counted per account from anywhere, past the ceiling every code typed for the account, the
// owner's right one included, needs a raised ALTCHA, sent in the X-Captcha header, and past a
// hundred failures in a day the top one. The owner is made to solve a puzzle, never to wait.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { client, freshMfa, makeUser, sessionFor, skipResendWaits } from '../testing/mfaKit.ts';
import { DEMO_PASSWORD } from '../seed/demo.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the second-factor ceiling on %s', (kind) => {
  let server: TestServer;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await startTestServer(kind, CAPTCHA_ON);
    api = client(server);
  });
  afterAll(async () => server?.stop());

  type Account = { email: string; ids: { totp?: number; email?: number } };

  /** A sign-in's challenge on the authenticator (else the email), from `from`, on a device of that address. */
  async function challengeFrom(user: Account, from: string) {
    const device = `device-${from.replaceAll('.', '-')}`;
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { 'x-device-id': device },
      payload: { username: user.email, password: DEMO_PASSWORD },
      remoteAddress: from,
    });
    expect(signIn.statusCode).toBe(401);
    // A mailed code may be replaced at once here (the resend wait is tested on its own).
    await skipResendWaits(server);
    const started = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${user.ids.totp ?? user.ids.email}&payload=${encodeURIComponent(signIn.json().mfa.payload)}`,
      headers: { 'x-device-id': device },
      remoteAddress: from,
    });
    expect(started.statusCode).toBe(200);
    const payload = started.json().payload as string;
    return {
      verify: (code: string, captcha?: string) =>
        server.app.inject({
          method: 'POST',
          url: '/api/mfa/sudo',
          headers: { 'x-device-id': device, ...(captcha ? { 'x-captcha': captcha } : {}) },
          payload: { payload, code },
          remoteAddress: from,
        }),
    };
  }

  async function account() {
    const secret = new Secret({ size: 20 });
    const user = await makeUser(server, { methods: ['totp'], totpSecret: secret.base32 });
    const totp = new TOTP({ secret, digits: 6, period: 30 });
    const wrong = () => (totp.generate() === '000000' ? '111111' : '000000');
    return { user, totp, wrong };
  }

  /** `count` wrong codes, five per sign-in, each sign-in from an address of its own. */
  async function strangers(user: Account, wrong: () => string, count: number) {
    for (let done = 0; done < count;) {
      const round = await challengeFrom(user, `10.2.${Math.floor(done / 5 / 250)}.${((done / 5) % 250) + 1}`);
      for (let i = 0; i < 5 && done < count; i++, done++) {
        const level = done >= 100 ? 2 : done >= 10 ? 1 : 0;
        const answer = await round.verify(wrong(), level > 0 ? await solvedCaptcha(server.app, level) : undefined);
        // The fifth closes its challenge (410); the others read "invalid code" (422).
        expect(answer.json().code, `wrong code ${done + 1}`).toBe(i < 4 ? 'invalid_code' : 'challenge_closed');
      }
    }
  }

  it('asks the owner for a raised puzzle after ten wrong codes from two addresses, never a wait', async () => {
    const { user, totp, wrong } = await account();
    await strangers(user, wrong, 9);
    const tenth = await (await challengeFrom(user, '192.0.2.77')).verify(wrong());
    expect(tenth.json()).toMatchObject({ code: 'invalid_code', captcha: true, captcha_level: 1 });

    const home = await challengeFrom(user, '198.51.100.40');
    const bare = await home.verify(totp.generate());
    expect(bare.statusCode).toBe(400);
    expect(bare.headers['retry-after']).toBeUndefined();
    expect(bare.json()).toMatchObject({ code: 'captcha_required', captcha: true, captcha_level: 1 });
    expect((await home.verify(totp.generate(), await solvedCaptcha(server.app, 0))).json()).toMatchObject({
      code: 'captcha_required',
      captcha_level: 1,
    });
    const signedIn = await home.verify(totp.generate(), await solvedCaptcha(server.app, 1));
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().access_token).toEqual(expect.any(String));
  });

  it('asks every code check of the account, whichever route, through the X-Captcha header', async () => {
    // An account whose second factor is its email: the strangers guess mailed codes.
    const user = await makeUser(server, { methods: ['email'] });
    await strangers(user, () => '00000000', 10);
    // Signed in elsewhere, the owner sets up a second authenticator: its first code is a check too.
    const token = await sessionFor(server, user.userId, 'owner-device-02');
    await freshMfa(server, user.userId);
    const started = (await api.call('GET', '/api/mfa/-3/activate', token, 'owner-device-02')).json();
    const code = new TOTP({ secret: started.data.secret, digits: 6, period: 30 }).generate();
    const activate = (captcha?: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/mfa/activate',
        payload: { payload: started.payload, code },
        headers: {
          'x-device-id': 'owner-device-02',
          authorization: `Bearer ${token}`,
          ...(captcha ? { 'x-captcha': captcha } : {}),
        },
      });
    expect((await activate()).json()).toMatchObject({ code: 'captcha_required', captcha_level: 1 });
    expect((await activate(await solvedCaptcha(server.app, 1))).statusCode).toBe(200);
  });

  it('asks for the top level past a hundred wrong codes in a day', async () => {
    const { user, totp, wrong } = await account();
    await strangers(user, wrong, 100);
    const home = await challengeFrom(user, '198.51.100.41');
    expect((await home.verify(totp.generate(), await solvedCaptcha(server.app, 1))).json()).toMatchObject({
      code: 'captcha_required',
      captcha_level: 2,
    });
    expect((await home.verify(totp.generate(), await solvedCaptcha(server.app, 2))).statusCode).toBe(200);
  });

  it('keeps the per-address limit tight: that address alone waits', async () => {
    const { user, totp, wrong } = await account();
    const from = '203.0.113.50';
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const theirs = await challengeFrom(user, from);
      for (let i = 0; i < 4; i++) {
        const level = statuses.length >= 10 ? 1 : 0;
        statuses.push(
          (await theirs.verify(wrong(), level > 0 ? await solvedCaptcha(server.app, level) : undefined)).statusCode,
        );
      }
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(422));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const home = await challengeFrom(user, '198.51.100.42');
    expect((await home.verify(totp.generate(), await solvedCaptcha(server.app, 1))).statusCode).toBe(200);
  });
});

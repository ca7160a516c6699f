// NIST SP 800-63B counts failed sign-ins per account: by email or by phone, they add up, from any
// address. Past the account's ceiling nobody is made to wait (a stranger could then lock the owner
// out from many addresses): every sign-in to the account needs a harder proof of work instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { makeUser } from '../testing/mfaKit.ts';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the account-wide failure ceiling on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // A small account ceiling, and per-address limits out of the way, to see the account's count alone.
    server = await startTestServer(kind, {
      ...CAPTCHA_ON,
      LOGIN_MAX_FAILS_PER_ACCOUNT: '4',
      LOGIN_MAX_FAILS_PER_USER_IP: '1000',
      LOGIN_MAX_FAILS_PER_IP: '1000',
    });
  });
  afterAll(async () => server?.stop());

  const login = (username: string, password: string, from: string, captcha?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: DEVICE,
      payload: { username, password, ...(captcha ? { captcha } : {}) },
      remoteAddress: from,
    });

  it('counts failures by email and by phone together, from any address, then asks everyone for a harder puzzle, never a wait', async () => {
    const user = await makeUser(server, { methods: [] });
    for (let i = 0; i < 3; i++)
      expect((await login(user.email, 'wrong-password', `192.0.2.${i + 1}`)).json().code).toBe('invalid_credentials');
    // The fourth failure reaches the ceiling, whichever name was typed: the answer says what comes next.
    const fourth = await login(user.phone, 'wrong-password', '192.0.2.9');
    expect(fourth.statusCode).toBe(400);
    expect(fourth.json()).toMatchObject({ code: 'invalid_credentials', captcha: true, captcha_level: 1 });

    // The owner, from home, with the right password: asked for a puzzle, not told to wait.
    const bare = await login(user.phone, DEMO_PASSWORD, '198.51.100.1');
    expect(bare.statusCode).toBe(400);
    expect(bare.headers['retry-after']).toBeUndefined();
    expect(bare.json()).toMatchObject({ code: 'captcha_required', captcha: true, captcha_level: 1 });
    // The forms' own puzzle is not enough past the ceiling (and is not spent by the refusal).
    const easy = await solvedCaptcha(server.app, 0);
    expect((await login(user.email, DEMO_PASSWORD, '198.51.100.1', easy)).json()).toMatchObject({
      code: 'captcha_required',
      captcha_level: 1,
    });
    // A raised one lets the right password through, by either name.
    expect(
      (await login(user.email, DEMO_PASSWORD, '198.51.100.1', await solvedCaptcha(server.app, 1))).statusCode,
    ).toBe(200);
    expect(
      (await login(user.phone, DEMO_PASSWORD, '198.51.100.2', await solvedCaptcha(server.app, 1))).statusCode,
    ).toBe(200);
    // The stranger's wrong password still costs nothing but a puzzle each: a failure, never a 429.
    const guess = await login(user.email, 'wrong-again', '192.0.2.50', await solvedCaptcha(server.app, 1));
    expect(guess.json()).toMatchObject({ code: 'invalid_credentials', captcha: true, captcha_level: 1 });
  });

  it('asks for the top level past 100 failures in a day, from a hundred addresses', async () => {
    const user = await makeUser(server, { methods: [] });
    for (let i = 0; i < 100; i++) {
      const puzzle = i >= 4 ? await solvedCaptcha(server.app, 1) : undefined;
      const answer = await login(user.email, `wrong-${i}`, `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`, puzzle);
      expect(answer.json().code).toBe('invalid_credentials');
    }
    expect((await login(user.email, DEMO_PASSWORD, '198.51.100.3')).json()).toMatchObject({
      code: 'captcha_required',
      captcha_level: 2,
    });
    expect(
      (await login(user.email, DEMO_PASSWORD, '198.51.100.3', await solvedCaptcha(server.app, 1))).json(),
    ).toMatchObject({ code: 'captcha_required', captcha_level: 2 });
    expect(
      (await login(user.email, DEMO_PASSWORD, '198.51.100.3', await solvedCaptcha(server.app, 2))).statusCode,
    ).toBe(200);
  });

  it('treats a name nobody has alike, so the puzzle tells nothing', async () => {
    const user = await makeUser(server, { methods: [] });
    const answers = { known: [] as string[], unknown: [] as string[] };
    for (let i = 0; i < 5; i++) {
      for (const [which, name] of [
        ['known', user.email],
        ['unknown', `nobody.${user.email}`],
      ] as const) {
        const puzzle = i >= 4 ? await solvedCaptcha(server.app, 1) : undefined;
        answers[which].push((await login(name, 'wrong-password', `192.0.2.${100 + i}`, puzzle)).body);
      }
    }
    expect(answers.unknown).toEqual(answers.known);
    expect(JSON.parse(answers.known[3]!)).toMatchObject({ captcha_level: 1 });
  });

  it('leaves another account alone', async () => {
    const other = await makeUser(server, { methods: [] });
    expect((await login(other.phone, DEMO_PASSWORD, '192.0.2.1')).statusCode).toBe(200);
  });
});

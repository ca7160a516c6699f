// Forgotten-password codes guessed from many addresses: counted by the name typed, past the ceiling
// every code typed for that name needs a harder ALTCHA (in the X-Captcha header), the owner's right
// one included; never a wait. A name nobody has is counted alike, so the puzzle tells nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { makeUser, skipResendWaits } from '../testing/mfaKit.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();
const headers = { 'x-device-id': 'reset-ceiling-dev1' };

describe.each(kinds)('the ceiling of forgotten-password codes on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { ...CAPTCHA_ON, SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  const forgot = async (username: string, from: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers,
      payload: { username, captcha: await solvedCaptcha(server.app) },
      remoteAddress: from,
    });
  const verify = (payload: string, code: string, from: string, captcha?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password/verify',
      headers: { ...headers, ...(captcha ? { 'x-captcha': captcha } : {}) },
      payload: { payload, code },
      remoteAddress: from,
    });
  /** A hundred wrong codes for a name: twenty requests, five guesses each, each from an address of its own. */
  async function strangers(name: string, net: string) {
    for (let round = 0; round < 20; round++) {
      const from = `${net}.${round + 1}`;
      const payload = (await forgot(name, from)).json().payload as string;
      await server.ctx.outbox.drain();
      for (let i = 0; i < 5; i++)
        expect((await verify(payload, String(30_000_000 + i), from)).json().code).toBe('invalid_code');
    }
  }

  it('asks the owner for the top puzzle after a hundred wrong codes from twenty addresses, and the same of a name nobody has', async () => {
    const user = await makeUser(server, { methods: [] });
    const nobody = `nobody.${user.email}`;
    await strangers(user.email, '10.3.1');
    await strangers(nobody, '10.3.2');

    await skipResendWaits(server);
    const home = '198.51.100.70';
    const mine = (await forgot(user.email, home)).json().payload as string;
    const theirs = (await forgot(nobody, home)).json().payload as string;
    await server.ctx.outbox.drain();
    const code = codeIn(smtp.mails.filter((m) => m.to === user.email).at(-1)!.raw);
    const bare = await verify(mine, code, home);
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toMatchObject({ code: 'captcha_required', captcha: true, captcha_level: 2 });
    // The unknown name's answer reads the same.
    expect((await verify(theirs, code, home)).body).toBe(bare.body);
    expect((await verify(mine, code, home, await solvedCaptcha(server.app, 1))).json()).toMatchObject({
      code: 'captcha_required',
      captcha_level: 2,
    });
    const ticket = await verify(mine, code, home, await solvedCaptcha(server.app, 2));
    expect(ticket.statusCode).toBe(200);
    expect(ticket.json().payload).toEqual(expect.any(String));
  });
});

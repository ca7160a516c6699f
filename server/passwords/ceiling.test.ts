// The password typed again (./confirm.ts) counts against the account's ceiling of failed sign-ins:
// the step-up of an account without a second factor, the password change, and the merge's proof of
// another account by its password. Strangers who hammer the account's sign-in from many addresses
// must not lock its owner out of these screens either: past the ceiling each try needs a solved
// ALTCHA of the raised level, carried in the X-Captcha header (server/captcha/carried.ts), and the
// right password with one passes; a puzzle of a lower level is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { CAPTCHA_ON, solvedCaptcha } from '../testing/captcha.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();
const LONG_AGO = '2000-01-01T00:00:00.000Z';

describe.each(kinds)("the password typed again past the account's ceiling on %s", (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    // A small account ceiling, and per-address limits out of the way, to see the account's count alone.
    server = await startTestServer(kind, {
      ...CAPTCHA_ON,
      SMTP_URL: smtp.url,
      LOGIN_MAX_FAILS_PER_ACCOUNT: '4',
      LOGIN_MAX_FAILS_PER_USER_IP: '1000',
      LOGIN_MAX_FAILS_PER_IP: '1000',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  /** Strangers' wrong passwords at the account's sign-in, one from each of four addresses: the
   * fourth reaches the ceiling, and says so. */
  async function hammer(email: string) {
    for (let i = 1; i <= 4; i++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { 'x-device-id': `stranger-device-${i}` },
        payload: { username: email, password: `Wrong-${i}-password!` },
        remoteAddress: `192.0.2.${i}`,
      });
      expect(res.json()).toMatchObject(
        i < 4 ? { code: 'invalid_credentials' } : { code: 'invalid_credentials', captcha: true, captcha_level: 1 },
      );
    }
  }

  /** The owner's POSTs on a session, with a solution in the X-Captcha header when given. */
  const on = (token: string, device: string) => (url: string, payload: object, captcha?: string) =>
    server.app.inject({
      method: 'POST',
      url: `/api/${url}`,
      payload,
      headers: {
        'x-device-id': device,
        authorization: `Bearer ${token}`,
        ...(captcha ? { 'x-captcha': captcha } : {}),
      },
    });

  /** What every route answers past the ceiling without the raised puzzle: no wait, the level to solve. */
  async function refusedWithoutRaisedPuzzle(send: (captcha?: string) => ReturnType<ReturnType<typeof on>>) {
    const bare = await send();
    expect(bare.statusCode).toBe(400);
    expect(bare.headers['retry-after']).toBeUndefined();
    expect(bare.json()).toMatchObject({ code: 'captcha_required', captcha: true, captcha_level: 1 });
    // The forms' own puzzle is not enough past the ceiling.
    const easy = await send(await solvedCaptcha(server.app, 0));
    expect(easy.statusCode).toBe(400);
    expect(easy.json()).toMatchObject({ code: 'captcha_required', captcha: true, captcha_level: 1 });
  }

  it('the step-up of an account without a second factor takes the right password with a raised puzzle', async () => {
    const owner = await makeUser(server, { methods: [] });
    const device = 'ceiling-step-up-01';
    const token = await sessionFor(server, owner.userId, device);
    // The sign-in is no longer recent: a sensitive screen wants the password again.
    await server.ctx.db
      .updateTable('sessions')
      .set({ created_at: LONG_AGO })
      .where('user_id', '=', owner.userId)
      .execute();
    const post = on(token, device);
    const sudo = async () =>
      (
        await server.app.inject({
          method: 'GET',
          url: '/api/mfa/status',
          headers: { 'x-device-id': device, authorization: `Bearer ${token}` },
        })
      ).json().sudo;
    expect(await sudo()).toBe(false);
    await hammer(owner.email);

    await refusedWithoutRaisedPuzzle((captcha) => post('mfa/sudo/password', { password: DEMO_PASSWORD }, captcha));
    expect(await sudo()).toBe(false);
    expect(
      (await post('mfa/sudo/password', { password: DEMO_PASSWORD }, await solvedCaptcha(server.app, 1))).statusCode,
    ).toBe(204);
    expect(await sudo()).toBe(true);
  });

  it('the password change takes the right current password with a raised puzzle', async () => {
    const owner = await makeUser(server, { methods: [] });
    const device = 'ceiling-change-01';
    const token = await sessionFor(server, owner.userId, device);
    await freshMfa(server, owner.userId);
    const post = on(token, device);
    await hammer(owner.email);
    const fresh = 'Ceiling-proof-pass-58';
    const change = { current: DEMO_PASSWORD, password: fresh, confirmation: fresh, keepThisSession: true };

    await refusedWithoutRaisedPuzzle((captcha) => post('user/password', change, captcha));
    const changed = await post('user/password', change, await solvedCaptcha(server.app, 1));
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ session_ended: false });
    // The new password is the account's now (its sign-in still past the ceiling: a raised puzzle too).
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers: { 'x-device-id': device },
      payload: { username: owner.email, password: fresh, captcha: await solvedCaptcha(server.app, 1) },
    });
    expect(signIn.statusCode).toBe(200);
  });

  it("the merge's proof of another account takes its right password with a raised puzzle", async () => {
    const me = await makeUser(server, { methods: [] });
    const device = 'ceiling-merge-01';
    const token = await sessionFor(server, me.userId, device);
    await freshMfa(server, me.userId);
    const post = on(token, device);
    // Its only second factor sends to the address being added: after that code, its password makes the pair.
    const other = await makeUser(server, { methods: ['email'] });
    const started = await post('user/login', { email: other.email });
    expect(started.statusCode).toBe(200);
    await server.ctx.outbox.drain();
    const mail = smtp.mails.filter((m) => m.to === other.email).at(-1);
    expect(mail).toBeDefined();
    const confirmed = await post('user/login/confirm', { payload: started.json().payload, code: codeIn(mail!.raw) });
    expect(confirmed.json()).toMatchObject({ code: 'email_in_use' });
    const payload = confirmed.json().fuzzion.payload as string;
    expect((await post('fuzzion/offer', { payload })).json()).toMatchObject({ enough: false, password: true });
    await hammer(other.email);

    const prove = (captcha?: string) =>
      post('fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD }, captcha);
    await refusedWithoutRaisedPuzzle(prove);
    const done = await prove(await solvedCaptcha(server.app, 1));
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
  });
});

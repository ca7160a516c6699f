// Sign-in with a passkey alone, on both databases, from the attacker's side: the challenge is its
// cookie's and is spent once (thirty at once give one session), a passkey that did not verify its
// user is no sign-in, an unknown credential answers as a wrong signature does after the same work,
// the requester's address and the account's own limits hold, and the Belgian origin names the
// Luxembourg one as related.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { addPasskey, client, signedInUser } from '../testing/mfaKit.ts';
import { startSmtp } from '../testing/peers.ts';
import { assert, register } from '../testing/softAuthenticator.ts';
import { userHandle } from '../methods/passkey.ts';
import { spend } from '../ratelimit/index.ts';
import { PASSKEY_COOKIE } from './passkey.ts';

// The verifications the server runs, counted: an unknown credential must cost one, as a known one does.
const verifications = vi.hoisted(() => ({ count: 0 }));
vi.mock('@simplewebauthn/server', async (importOriginal) => {
  const original = await importOriginal<typeof import('@simplewebauthn/server')>();
  return {
    ...original,
    verifyAuthenticationResponse: (...args: Parameters<typeof original.verifyAuthenticationResponse>) => {
      verifications.count += 1;
      return original.verifyAuthenticationResponse(...args);
    },
  };
});

const kinds = await databaseKinds();

describe.each(kinds)('passkey sign-in on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let api: ReturnType<typeof client>;
  let origin: string;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { SMTP_URL: smtp.url, LOGIN_MAX_FAILS_PER_IP: '8' });
    api = client(server);
    origin = server.ctx.config.publicOrigins.be;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  let address = 0;
  /** A requester of its own: the per-address limit of one test does not reach the next. */
  const nextIp = () => `198.51.100.${++address}`;

  /** POST /passkey/options from `ip`, whatever it answers. */
  const askOptions = (ip: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/passkey/options',
      headers: { 'x-device-id': 'passkey-sign-in-01' },
      remoteAddress: ip,
    });

  /** A challenge handed out to `ip`, and its cookie. */
  async function options(ip: string) {
    const res = await askOptions(ip);
    expect(res.statusCode).toBe(200);
    const cookie = res.cookies.find((c) => c.name === PASSKEY_COOKIE)!;
    return { options: res.json(), cookie };
  }

  it("bounds one address's challenges (each is a row for five minutes), and not another's", async () => {
    const ip = nextIp();
    const rows = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom('passkey_sign_ins')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const budget = server.ctx.limiters.passkeyChallenges.points;
    await Promise.all(Array.from({ length: budget }, () => options(ip)));
    const before = await rows();
    const refused = await askOptions(ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('too_many_attempts');
    expect(refused.cookies.find((c) => c.name === PASSKEY_COOKIE)).toBeUndefined();
    expect(await rows()).toBe(before);
    await options(nextIp());
  });

  const signIn = (ip: string, cookie: string | null, credential: unknown, device = 'passkey-sign-in-01') =>
    server.app.inject({
      method: 'POST',
      url: '/api/passkey/sign-in',
      headers: { 'x-device-id': device, ...(cookie ? { cookie: `${PASSKEY_COOKIE}=${cookie}` } : {}) },
      remoteAddress: ip,
      payload: { credential },
    });

  /** An account with a passkey; what its authenticator answers to a sign-in, user handle included. */
  async function withPasskey(device: string, synced = false) {
    const user = await signedInUser(server, { methods: ['email'] }, device);
    const { id, passkey } = await addPasskey(server, user, { synced });
    const handle = Buffer.from(userHandle(server.ctx.config.secretKey, user.userId)).toString('base64url');
    return { user, id, passkey, handle };
  }

  it('hands out a challenge that only this site can send back: an HttpOnly, SameSite=Strict cookie of 5 minutes', async () => {
    const { options: given, cookie } = await options(nextIp());
    expect(given.rpId).toBe(new URL(origin).hostname);
    expect(given.userVerification).toBe('required');
    expect(given.allowCredentials ?? []).toEqual([]);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/passkey', maxAge: 300 });
  });

  it('signs in with a passkey that verified its user: both factors at once, said in amr', async () => {
    const { user, passkey, handle } = await withPasskey('passkey-sign-in-02');
    const ip = nextIp();
    const { options: given, cookie } = await options(ip);
    const res = await signIn(ip, cookie.value, assert(passkey, given, { origin, userHandle: handle }));
    expect(res.statusCode).toBe(200);
    expect(res.json().access_token).toBeTruthy();
    const session = await server.ctx.db
      .selectFrom('sessions')
      .select(['mfa_at', 'mfa_amr'])
      .where('user_id', '=', user.userId)
      .where('device_key', '=', 'passkey-sign-in-01')
      .executeTakeFirstOrThrow();
    expect(session.mfa_at).not.toBeNull();
    expect(session.mfa_amr).toBe('hwk user');
    // The cookie went with its challenge: the same answer again finds nothing to answer.
    expect(res.cookies.find((c) => c.name === PASSKEY_COOKIE)?.value).toBe('');
    const again = await signIn(ip, cookie.value, assert(passkey, given, { origin, userHandle: handle }));
    expect(again.statusCode).toBe(410);
  });

  it('refuses a passkey that did not verify its user, one answered without its cookie, and one with another user handle', async () => {
    const { passkey, handle } = await withPasskey('passkey-sign-in-03');
    const other = await withPasskey('passkey-sign-in-04');
    const ip = nextIp();
    let started = await options(ip);
    const unverified = await signIn(
      ip,
      started.cookie.value,
      assert(passkey, started.options, { origin, userHandle: handle, userVerified: false }),
    );
    expect(unverified.statusCode).toBe(422);
    expect(unverified.json().code).toBe('passkey_refused');
    started = await options(ip);
    const cookieless = await signIn(ip, null, assert(passkey, started.options, { origin, userHandle: handle }));
    expect(cookieless.statusCode).toBe(410);
    started = await options(ip);
    const mixed = await signIn(
      ip,
      started.cookie.value,
      assert(passkey, started.options, { origin, userHandle: other.handle }),
    );
    expect(mixed.json().code).toBe('passkey_refused');
    // An answer made for another site's challenge.
    started = await options(ip);
    const elsewhere = await signIn(
      ip,
      started.cookie.value,
      assert(passkey, started.options, { origin: 'https://account.evil.example', userHandle: handle }),
    );
    expect(elsewhere.json().code).toBe('passkey_refused');
  });

  it('answers an unknown credential as a wrong signature, after the same verification, with its own code', async () => {
    const { passkey, handle } = await withPasskey('passkey-sign-in-05');
    const ip = nextIp();
    // A wrong signature: a known credential, answering another challenge.
    let started = await options(ip);
    let before = verifications.count;
    const wrong = await signIn(
      ip,
      started.cookie.value,
      assert(passkey, { ...started.options, challenge: 'b3RoZXItY2hhbGxlbmdl' }, { origin, userHandle: handle }),
    );
    expect(verifications.count - before).toBe(1);
    // A credential nobody registered: made by an authenticator for this site, never added.
    const stranger = register({ challenge: 'bm90aGluZw', rp: { id: new URL(origin).hostname } }, { origin }).passkey;
    started = await options(ip);
    before = verifications.count;
    const unknown = await signIn(ip, started.cookie.value, assert(stranger, started.options, { origin }));
    expect(verifications.count - before).toBe(1);
    expect(unknown.statusCode).toBe(wrong.statusCode);
    expect(wrong.json().code).toBe('passkey_refused');
    expect(unknown.json().code).toBe('passkey_unknown');
  });

  it('gives one session when thirty answers spend one challenge at once', async () => {
    const { user, passkey, handle } = await withPasskey('passkey-sign-in-06', true);
    const ip = nextIp();
    const { options: given, cookie } = await options(ip);
    const signed = assert(passkey, given, { origin, userHandle: handle });
    const answers = await atOnce(30, () => signIn(ip, cookie.value, signed, 'passkey-race-device-1'));
    expect(answers.every((a) => a.statusCode < 500)).toBe(true);
    expect(statusCounts(answers)[200]).toBe(1);
    const sessions = await server.ctx.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user.userId)
      .where('device_key', '=', 'passkey-race-device-1')
      .execute();
    expect(sessions).toHaveLength(1);
  });

  it("counts failures per requester address before the assertion, and holds the account's own sign-in limits after it", async () => {
    const { user, passkey, handle } = await withPasskey('passkey-sign-in-07');
    const ip = nextIp();
    const stranger = register({ challenge: 'bm90aGluZw', rp: { id: new URL(origin).hostname } }, { origin }).passkey;
    let last = 0;
    for (let i = 0; i < 9; i++) {
      const started = await options(ip).catch(() => null);
      if (!started) break;
      last = (await signIn(ip, started.cookie.value, assert(stranger, started.options, { origin }))).statusCode;
    }
    expect(last).toBe(429);
    // The right passkey from that address waits too.
    const blocked = await askOptions(ip);
    expect(blocked.statusCode).toBe(429);

    // The account's sign-in from another address, paused by wrong passwords there (counted as the
    // password sign-in counts them), pauses the passkey there too.
    const other = nextIp();
    for (let i = 0; i <= server.ctx.limiters.userIp.points; i++) {
      await spend(server.ctx.limiters.userIp, `user:${user.userId}|${other}`);
    }
    const started = await options(other);
    const res = await signIn(
      other,
      started.cookie.value,
      assert(passkey, started.options, { origin, userHandle: handle }),
    );
    expect(res.statusCode).toBe(429);
  });

  it('offers a passkey after a password sign-in until the account has one or says not now', async () => {
    const user = await signedInUser(server, { methods: ['email'] }, 'passkey-offer-0001');
    const status = async () => (await api.call('GET', '/api/mfa/status', user.token, user.device)).json().passkey_offer;
    expect(await status()).toBe(true);
    expect((await api.call('POST', '/api/passkey/offer/later', user.token, user.device)).statusCode).toBe(204);
    expect(await status()).toBe(false);
    const other = await signedInUser(server, { methods: ['email'] }, 'passkey-offer-0002');
    await addPasskey(server, other);
    expect((await api.call('GET', '/api/mfa/status', other.token, other.device)).json().passkey_offer).toBe(false);
  });

  it("tells the account's own browser which passkeys the server still takes, under the names they were made with", async () => {
    const { user, id, passkey, handle } = await withPasskey('passkey-account-01');
    const account = async () => (await api.call('GET', '/api/passkey/account', user.token, user.device)).json();
    const person = await server.ctx.db
      .selectFrom('users')
      .select(['firstname', 'lastname'])
      .where('id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(await account()).toEqual({
      rpId: new URL(origin).hostname,
      userId: handle,
      credentialIds: [passkey.id],
      name: user.email,
      displayName: `${person.firstname} ${person.lastname}`,
    });
    // Deleted: none is taken any more, which the password manager is told.
    expect((await api.call('DELETE', `/api/mfa/${id}`, user.token, user.device)).statusCode).toBe(204);
    expect((await account()).credentialIds).toEqual([]);
    // Signed out, nothing is told.
    expect((await api.call('GET', '/api/passkey/account', '', user.device)).statusCode).toBe(401);
  });

  it('names the Luxembourg origin as related at the Belgian one, and nothing at the Luxembourg one', async () => {
    const lu = new URL(server.ctx.config.publicOrigins.lu);
    const be = await server.app.inject({
      method: 'GET',
      url: '/.well-known/webauthn',
      headers: { host: new URL(origin).host },
    });
    expect(be.statusCode).toBe(200);
    expect(be.json()).toEqual({ origins: [lu.origin] });
    const there = await server.app.inject({ method: 'GET', url: '/.well-known/webauthn', headers: { host: lu.host } });
    expect(there.statusCode).toBe(404);
  });
});

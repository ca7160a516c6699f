// The way to a merge through the API, on both databases, from the attacker's side first
// (docs/decisions/merge-proofs.md): proving another account takes what signing in to it takes, a first factor
// (the code sent to the address being added, or its password) and then one of its own second
// factors where it has any; a card number alone proves nothing; nothing about the other account is
// told before the code comes back; a decline only where the other account keeps an email and a
// phone; and thirty finishes at once give one winner.
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { NEW_METHOD_IDS } from '../../contract/constants.ts';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, passwordSignIn, type TestServer } from '../testing/harness.ts';
import {
  addPasskey,
  freshMfa,
  makeUser,
  sessionFor,
  signedInUser,
  skipResendWaits,
  type Method,
} from '../testing/mfaKit.ts';
import { assert } from '../testing/softAuthenticator.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { codeIn } from '../testing/peers.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the way to a merge on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;

  useServerWithPeers(kind, { SMS_PROVIDER_KEY: 'provider-key' }, (peers) => {
    ({ server, smtp, sms } = peers);
  });

  const signedIn = (methods: Method[] = []) =>
    signedInUser(server, { methods }, (userId) => `fuzzion-${userId.slice(0, 8)}`);
  type Who = Awaited<ReturnType<typeof signedIn>>;
  const call = (who: Who, url: string, payload: object) =>
    server.app.inject({
      method: 'POST',
      url: `/api/${url}`,
      headers: { 'x-device-id': who.device, authorization: `Bearer ${who.token}` },
      payload,
    });
  const closed = async (userId: string) =>
    (await server.ctx.db.selectFrom('users').select('closed_at').where('id', '=', userId).executeTakeFirstOrThrow())
      .closed_at;
  const emailsOf = async (userId: string) =>
    (await server.ctx.db.selectFrom('user_emails').select('value').where('user_id', '=', userId).execute()).map(
      (r) => r.value,
    );
  const mailsTo = (address: string) => smtp.mails.filter((m) => m.to === address);
  /** The code the address received last. */
  async function codeSentTo(address: string) {
    await server.ctx.outbox.drain();
    const mail = mailsTo(address).at(-1);
    expect(mail).toBeDefined();
    return codeIn(mail!.raw);
  }
  async function addEmail(userId: string, value: string) {
    await server.ctx.db
      .insertInto('user_emails')
      .values({ id: newId(), user_id: userId, value, is_default: 0, verified: 1, created_at: nowIso() })
      .execute();
  }
  const otherCode = (code: string) => (code === '00000000' ? '11111111' : '00000000');

  /** Adds an address as the profile does: the code goes to it, and its answer is the offer. */
  async function offerFor(who: Who, email: string): Promise<string> {
    const started = await call(who, 'user/login', { email });
    expect(started.statusCode).toBe(200);
    const confirmed = await call(who, 'user/login/confirm', {
      payload: started.json().payload,
      code: await codeSentTo(email),
    });
    expect(confirmed.statusCode).toBe(409);
    expect(confirmed.json()).toMatchObject({ code: 'email_in_use', fuzzion: { kind: 'email', target: email } });
    return confirmed.json().fuzzion.payload as string;
  }

  it("answers adding another account's email exactly as a free one, and says nothing until the code comes back", async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const free = `free.${me.userId.slice(0, 8)}@example.be`;
    const [taken, fresh] = [
      await call(me, 'user/login', { email: other.email }),
      await call(me, 'user/login', { email: free }),
    ];
    expect(taken.statusCode).toBe(fresh.statusCode);
    expect(taken.statusCode).toBe(200);
    const shape = (body: Record<string, unknown>) =>
      JSON.stringify(body, (key, value) =>
        key === 'payload' || key.endsWith('_at') || key === 'target' ? typeof value : value,
      );
    expect(shape(taken.json())).toBe(shape(fresh.json()));
    expect(JSON.stringify(taken.json())).not.toMatch(/fuzzion|in_use/);
    // The same work: a code went to each, and no offer exists yet.
    expect(await codeSentTo(other.email)).toMatch(/^\d{8}$/);
    expect(await codeSentTo(free)).toMatch(/^\d{8}$/);
    const offers = await server.ctx.db
      .selectFrom('tickets')
      .select('id')
      .where('user_id', '=', me.userId)
      .where('kind', '=', 'fuzzion')
      .execute();
    expect(offers).toEqual([]);
    // A wrong code tells nothing either.
    const wrong = await call(me, 'user/login/confirm', {
      payload: taken.json().payload,
      code: otherCode(await codeSentTo(other.email)),
    });
    expect(wrong.statusCode).toBe(422);
    expect(JSON.stringify(wrong.json())).not.toMatch(/fuzzion|in_use/);
  });

  it("answers activating a second factor on another account's email exactly as a free one; the offer comes with the right code", async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const free = `free2.${me.userId.slice(0, 8)}@example.be`;
    const activate = (target: string) =>
      server.app.inject({
        method: 'GET',
        url: `/api/mfa/-1/activate?target=${encodeURIComponent(target)}`,
        headers: { 'x-device-id': me.device, authorization: `Bearer ${me.token}` },
      });
    const [taken, fresh] = [await activate(other.email), await activate(free)];
    expect(taken.statusCode).toBe(200);
    expect(fresh.statusCode).toBe(200);
    expect(taken.json().fuzzion).toBe(false);
    expect(Object.keys(taken.json().data).sort()).toEqual(Object.keys(fresh.json().data).sort());
    expect(JSON.stringify(taken.json())).not.toMatch(/in_use/);
    const confirmed = await call(me, 'mfa/activate', {
      payload: taken.json().payload,
      code: await codeSentTo(other.email),
    });
    expect(confirmed.statusCode).toBe(409);
    expect(confirmed.json()).toMatchObject({ code: 'email_in_use', fuzzion: { kind: 'email', target: other.email } });
    // No method was added to my account for an address that is not mine to add.
    const mine = await server.ctx.db
      .selectFrom('mfa_methods')
      .select('target')
      .where('user_id', '=', me.userId)
      .execute();
    expect(mine).toEqual([]);
    const offer = await call(me, 'fuzzion/offer', { payload: confirmed.json().fuzzion.payload });
    expect(offer.json()).toMatchObject({ proven: ['code'], enough: true });
  });

  it('merges an account without a second factor once the code to its address came back, and tells it everywhere it could be reached', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [], language: 'fr' });
    const spare = `spare.${other.userId.slice(0, 8)}@example.be`;
    await addEmail(other.userId, spare);
    const payload = await offerFor(me, other.email);

    const offer = await call(me, 'fuzzion/offer', { payload });
    expect(offer.statusCode).toBe(200);
    expect(offer.json()).toEqual({
      kind: 'email',
      target: other.email,
      proven: ['code'],
      enough: true,
      password: false,
      methods: [],
      can_decline: true,
      sso_only: false,
      expires_at: expect.any(String),
    });
    const smsBefore = sms.messages.length;
    const done = await call(me, 'fuzzion/finish', { payload, intent: 'merge' });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, mfa: [], data: { outcome: 'merged' } });
    expect(await closed(other.userId)).not.toBeNull();
    expect((await emailsOf(me.userId)).sort()).toEqual([me.email, other.email, spare].sort());
    // The other account hears of it at each email and phone it held, in its own language.
    await server.ctx.outbox.drain();
    for (const address of [other.email, spare]) {
      expect(mailsTo(address).some((m) => m.raw.includes('fusionn='))).toBe(true);
    }
    expect(sms.messages.slice(smsBefore).filter((m) => m.to === other.phone)).toHaveLength(1);
    // Both histories hold it.
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select(['user_id', 'type'])
      .where('type', 'in', ['accounts_merged', 'account_merged_away'])
      .where('user_id', 'in', [me.userId, other.userId])
      .execute();
    expect(events.map((e) => `${e.user_id === me.userId ? 'me' : 'other'}:${e.type}`).sort()).toEqual([
      'me:accounts_merged',
      'other:account_merged_away',
    ]);
    // The offer is spent: nothing more happens with it.
    expect((await call(me, 'fuzzion/offer', { payload })).json().code).toBe('merge_unavailable');
  });

  it('keeps the session that received the offer in the merge until it is spent, cancelled or expired, and no other session', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const profile = async (who: { token: string; device: string }) =>
      (
        await server.app.inject({
          method: 'GET',
          url: '/api/user',
          headers: { 'x-device-id': who.device, authorization: `Bearer ${who.token}` },
        })
      ).json().data;
    expect((await profile(me)).fuzzion_until).toBeUndefined();
    const payload = await offerFor(me, other.email);
    const until = (await profile(me)).fuzzion_until;
    expect(Date.parse(until)).toBeGreaterThan(Date.now());
    // Another session of the same account is not in it.
    const elsewhere = { device: 'fuzzion-elsewhere', token: await sessionFor(server, me.userId, 'fuzzion-elsewhere') };
    expect((await profile(elsewhere)).fuzzion_until).toBeUndefined();
    // Cancelling from elsewhere leaves it open; from the session, the offer is spent.
    expect((await call(elsewhere as Who, 'fuzzion/cancel', {})).statusCode).toBe(204);
    expect((await profile(me)).fuzzion_until).toBe(until);
    expect((await call(me, 'fuzzion/cancel', {})).statusCode).toBe(204);
    expect((await profile(me)).fuzzion_until).toBeUndefined();
    expect((await call(me, 'fuzzion/offer', { payload })).json().code).toBe('merge_unavailable');
    // Again, with nothing open: the same answer, nothing changed.
    expect((await call(me, 'fuzzion/cancel', {})).statusCode).toBe(204);
    // A new offer, spent by its finish, and one that expired: both leave the merge.
    await skipResendWaits(server);
    const second = await offerFor(me, other.email);
    expect((await profile(me)).fuzzion_until).toBeDefined();
    await server.ctx.db
      .updateTable('tickets')
      .set({ expires_at: nowIso(Date.now() - 1000) })
      .where('kind', '=', 'fuzzion')
      .where('user_id', '=', me.userId)
      .execute();
    expect((await profile(me)).fuzzion_until).toBeUndefined();
    await skipResendWaits(server);
    const third = await offerFor(me, other.email);
    expect(third).not.toBe(second);
    expect((await call(me, 'fuzzion/finish', { payload: third, intent: 'merge' })).statusCode).toBe(200);
    expect((await profile(me)).fuzzion_until).toBeUndefined();
    // Without a session: refused.
    const anonymous = await server.app.inject({
      method: 'POST',
      url: '/api/fuzzion/cancel',
      headers: { 'x-device-id': me.device },
      payload: {},
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses a card number as a proof, anywhere: the routes that took one alone are gone, and a card counts only as a configured second factor', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: ['card'] });
    const number = `5065${String(Date.now()).slice(-8)}${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}`;
    await server.ctx.db
      .insertInto('cards')
      .values({ id: newId(), number, user_id: other.userId, activated_at: nowIso(), created_at: nowIso() })
      .execute();
    // The attack as it was: add her email, get an offer at once, prove by her card number alone.
    const started = await call(me, 'user/login', { email: other.email });
    expect(started.statusCode).toBe(200);
    expect(started.json().fuzzion).toBeUndefined();
    expect(
      (await call(me, 'fuzzion/card', { payload: started.json().payload, intent: 'merge', card: number })).statusCode,
    ).toBe(404);
    expect((await call(me, 'fuzzion/finish', { payload: started.json().payload, intent: 'merge' })).json().code).toBe(
      'merge_unavailable',
    );
    // With the code (a first factor), the card is her configured second factor, and then it counts.
    await skipResendWaits(server);
    const payload = await offerFor(me, other.email);
    const offer = (await call(me, 'fuzzion/offer', { payload })).json();
    expect(offer).toMatchObject({ enough: false, password: false, methods: [{ id: other.ids.card, method: 'card' }] });
    expect((await call(me, 'fuzzion/finish', { payload, intent: 'merge' })).json().code).toBe('merge_proof_required');
    const challenge = await call(me, 'mfa/fuzzion', { payload, mfaId: other.ids.card });
    expect(challenge.statusCode).toBe(200);
    const wrong = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: challenge.json().payload,
      code: '5065000099999999',
    });
    expect(wrong.statusCode).toBe(422);
    expect(await closed(other.userId)).toBeNull();
    const right = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: challenge.json().payload,
      code: number,
    });
    expect(right.statusCode).toBe(200);
    expect(right.json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
  });

  it("refuses the code and the password without the other account's second factor, then merges with it", async () => {
    const me = await signedIn();
    const secret = new Secret({ size: 20 });
    const other = await makeUser(server, { methods: ['totp'], totpSecret: secret.base32 });
    const payload = await offerFor(me, other.email);
    expect((await call(me, 'fuzzion/offer', { payload })).json()).toMatchObject({
      proven: ['code'],
      enough: false,
      password: false,
      methods: [{ id: other.ids.totp, method: 'totp' }],
    });
    // Its password too is only a first factor: still not enough.
    const password = await call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD });
    expect(password.statusCode).toBe(200);
    expect(password.json()).toMatchObject({
      done: false,
      password: false,
      mfa: [{ id: other.ids.totp, method: 'totp' }],
    });
    expect((await call(me, 'fuzzion/finish', { payload, intent: 'merge' })).statusCode).toBe(403);
    expect(await closed(other.userId)).toBeNull();

    const challenge = await call(me, 'mfa/fuzzion', { payload, mfaId: other.ids.totp });
    expect(challenge.json()).toMatchObject({ method: 'totp' });
    const code = new TOTP({ secret, digits: 6, period: 30 }).generate();
    const done = await call(me, 'fuzzion', { payload, intent: 'merge', challenge: challenge.json().payload, code });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
    expect(await closed(other.userId)).not.toBeNull();
  });

  it('proves the other account by its passkey, and moves every one of its passkeys to the survivor', async () => {
    const me = await signedIn(['email']);
    await addPasskey(server, me);
    const other = await signedIn(['email']);
    const theirs = await addPasskey(server, other);
    const payload = await offerFor(me, other.email);
    const challenge = await call(me, 'mfa/fuzzion', { payload, mfaId: theirs.id });
    expect(challenge.statusCode).toBe(200);
    expect(challenge.json()).toMatchObject({ method: 'passkey' });
    const origin = server.ctx.config.publicOrigins.be;
    const options = challenge.json().passkey;
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([theirs.passkey.id]);
    // A wrong signature proves nothing.
    const forged = assert(theirs.passkey, { ...options, challenge: 'bm90LXRoZS1jaGFsbGVuZ2U' }, { origin });
    const refused = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: challenge.json().payload,
      credential: forged,
    });
    expect(refused.json().code).toBe('passkey_refused');
    const done = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: challenge.json().payload,
      credential: assert(theirs.passkey, options, { origin }),
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
    const survivors = await server.ctx.db
      .selectFrom('passkeys')
      .innerJoin('mfa_methods', 'mfa_methods.id', 'passkeys.method_id')
      .select('mfa_methods.user_id')
      .where('passkeys.method_id', '=', theirs.id)
      .execute();
    expect(survivors).toEqual([{ user_id: me.userId }]);
    const mine = await server.ctx.db
      .selectFrom('mfa_methods')
      .select('id')
      .where('user_id', '=', me.userId)
      .where('method', '=', 'passkey')
      .execute();
    expect(mine).toHaveLength(2);
  });

  it('counts a second factor sending to the address being added once, as the code: then the password makes the pair', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: ['email'] });
    const payload = await offerFor(me, other.email);
    // Her only second factor sends to the address whose code was just typed: it is not offered again.
    expect((await call(me, 'fuzzion/offer', { payload })).json()).toMatchObject({
      enough: false,
      password: true,
      methods: [],
    });
    expect((await call(me, 'mfa/fuzzion', { payload, mfaId: other.ids.email })).statusCode).toBe(404);
    const done = await call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
  });

  it("sends a second factor's code only to that method's own destination, whatever the request names", async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: ['sms'] });
    const third = await makeUser(server, { methods: ['sms'] });
    const payload = await offerFor(me, other.email);
    // No destination can be named, with the method's id or by a new method's (negative) id; another
    // account's method is not this offer's.
    const before = sms.messages.length;
    for (const named of [
      { mfaId: other.ids.sms, target: me.phone },
      { mfaId: NEW_METHOD_IDS.sms, target: me.phone },
      { mfaId: NEW_METHOD_IDS.email, target: me.email },
    ]) {
      const refused = await call(me, 'mfa/fuzzion', { payload, ...named });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().code).toBe('invalid_request');
    }
    expect((await call(me, 'mfa/fuzzion', { payload, mfaId: third.ids.sms })).statusCode).toBe(404);
    await server.ctx.outbox.drain();
    expect(sms.messages.length).toBe(before);
    const started = await call(me, 'mfa/fuzzion', { payload, mfaId: other.ids.sms, channel: 'call' });
    expect(started.statusCode).toBe(200);
    await server.ctx.outbox.drain();
    const sent = sms.messages.slice(before);
    expect(sent.map((m) => m.to)).toEqual([other.phone]);
    // A wrong answer counts against her second factor, as at her sign-in.
    const wrong = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: started.json().payload,
      code: otherCode(codeIn(sent[0]!.text)),
    });
    expect(wrong.statusCode).toBe(422);
    const failed = await server.ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', '=', other.userId)
      .where('type', '=', 'mfa_failed')
      .execute();
    expect(failed).toHaveLength(1);
    // The challenge of another offer (another person's, on the same account) does not prove this one.
    await skipResendWaits(server);
    const stranger = await signedIn();
    const theirs = await offerFor(stranger, other.email);
    const mark = sms.messages.length;
    const theirChallenge = await call(stranger, 'mfa/fuzzion', { payload: theirs, mfaId: other.ids.sms });
    expect(theirChallenge.statusCode).toBe(200);
    await server.ctx.outbox.drain();
    const theirCode = codeIn(sms.messages.slice(mark).at(-1)!.text);
    const borrowed = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: theirChallenge.json().payload,
      code: theirCode,
    });
    expect(borrowed.statusCode).toBe(410);
    expect(borrowed.json().code).toBe('challenge_closed');
    expect(await closed(other.userId)).toBeNull();
  });

  it('cannot prove an account that signs in with Microsoft only', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    await server.ctx.db.updateTable('users').set({ sso_only: 1, has_sso: 1 }).where('id', '=', other.userId).execute();
    const payload = await offerFor(me, other.email);
    expect((await call(me, 'fuzzion/offer', { payload })).json()).toMatchObject({
      sso_only: true,
      enough: false,
      can_decline: false,
      methods: [],
    });
    for (const [url, body] of [
      ['fuzzion/finish', { intent: 'merge' }],
      ['fuzzion/finish', { intent: 'decline' }],
      ['fuzzion/password', { intent: 'merge', password: DEMO_PASSWORD }],
    ] as const) {
      const refused = await call(me, url, { payload, ...body });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().code).toBe('merge_sso_only');
    }
    expect(await closed(other.userId)).toBeNull();
  });

  it("counts wrong passwords against the other account's own sign-in limits", async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: ['email'] });
    const payload = await offerFor(me, other.email);
    const limit = server.ctx.config.login.maxFailsPerUserIp;
    for (let i = 0; i < limit; i++) {
      const res = await call(me, 'fuzzion/password', { payload, intent: 'merge', password: `Wrong-${i}-password!` });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_credentials');
    }
    expect(
      (await call(me, 'fuzzion/password', { payload, intent: 'merge', password: 'Wrong-last-password!' })).statusCode,
    ).toBe(429);
    // The other account's sign-in from this address is paused too: the guesses were its own.
    const signIn = await passwordSignIn(server, other.email, DEMO_PASSWORD, { 'x-device-id': 'fuzzion-other-01' });
    expect(signIn.statusCode).toBe(429);
    const failures = await server.ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', '=', other.userId)
      .where('type', '=', 'login_failed')
      .execute();
    expect(failures.length).toBeGreaterThanOrEqual(limit);
    expect(await closed(other.userId)).toBeNull();
  });

  it('declines by taking the address off the other account where it keeps an email and a phone, and then lets it be added', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const spare = `spare2.${other.userId.slice(0, 8)}@example.be`;
    await addEmail(other.userId, spare);
    const payload = await offerFor(me, spare);
    expect((await call(me, 'fuzzion/offer', { payload })).json()).toMatchObject({ can_decline: true });

    const done = await call(me, 'fuzzion/finish', { payload, intent: 'decline' });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, data: { outcome: 'declined' } });
    expect(await emailsOf(other.userId)).toEqual([other.email]);
    expect(await closed(other.userId)).toBeNull();
    // Free now: its code adds it.
    await skipResendWaits(server);
    const again = await call(me, 'user/login', { email: spare });
    expect(again.statusCode).toBe(200);
    expect(
      (await call(me, 'user/login/confirm', { payload: again.json().payload, code: await codeSentTo(spare) }))
        .statusCode,
    ).toBe(200);
    expect(await emailsOf(me.userId)).toContain(spare);
  });

  it('refuses a decline that would leave the other account without an email, and writes nothing', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);
    const refused = await call(me, 'fuzzion/finish', { payload, intent: 'decline' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('decline_unavailable');
    expect(await emailsOf(other.userId)).toEqual([other.email]);
    // The offer stands: the person may still merge.
    expect((await call(me, 'fuzzion/finish', { payload, intent: 'merge' })).json()).toMatchObject({
      done: true,
      data: { outcome: 'merged' },
    });
  });

  it('reaches no step without its proof, whatever the browser sends', async () => {
    const me = await signedIn();
    const stranger = await signedIn();
    const other = await makeUser(server, { methods: ['sms'] });
    const payload = await offerFor(me, other.email);
    // Someone else's session with my offer; a made-up offer.
    expect((await call(stranger, 'fuzzion/finish', { payload, intent: 'merge' })).json().code).toBe(
      'merge_unavailable',
    );
    expect((await call(stranger, 'mfa/fuzzion', { payload, mfaId: other.ids.sms })).json().code).toBe(
      'merge_unavailable',
    );
    expect((await call(me, 'fuzzion/offer', { payload: 'not-an-offer' })).json().code).toBe('merge_unavailable');
    // A code for another purpose (adding a free address) proves nothing about this one.
    const free = `free3.${me.userId.slice(0, 8)}@example.be`;
    const added = await call(me, 'user/login', { email: free });
    const misuse = await call(me, 'fuzzion', {
      payload,
      intent: 'merge',
      challenge: added.json().payload,
      code: await codeSentTo(free),
    });
    expect(misuse.statusCode).toBe(410);
    expect(misuse.json().code).toBe('challenge_closed');
    // Without a recent second factor (or password) on the session: nothing.
    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).where('user_id', '=', me.userId).execute();
    expect((await call(me, 'fuzzion/finish', { payload, intent: 'merge' })).statusCode).toBe(403);
    // Bad input is a 400 with a stable code.
    await freshMfa(server, me.userId);
    const bad = await call(me, 'fuzzion/finish', { payload, intent: 'steal' });
    expect(bad.statusCode).toBe(400);
    expect((await call(me, 'mfa/fuzzion', { payload, mfaId: 1.5 })).statusCode).toBe(400);
    expect(await closed(other.userId)).toBeNull();
  });

  it('finishes once of thirty finishes at once, and one of thirty right answers at once', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);
    const answers = await atOnce(30, () => call(me, 'fuzzion/finish', { payload, intent: 'merge' }));
    expect(statusCounts(answers)).toEqual({ 200: 1, 409: 29 });
    expect(answers.filter((a) => a.statusCode === 409).every((a) => a.json().code === 'merge_unavailable')).toBe(true);
    expect((await emailsOf(me.userId)).sort()).toEqual([me.email, other.email].sort());
    const merges = await server.ctx.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', '=', me.userId)
      .where('type', '=', 'accounts_merged')
      .execute();
    expect(merges).toHaveLength(1);

    const secondFactor = await makeUser(server, { methods: ['sms'] });
    const offer = await offerFor(me, secondFactor.email);
    const before = sms.messages.length;
    const started = await call(me, 'mfa/fuzzion', { payload: offer, mfaId: secondFactor.ids.sms });
    await server.ctx.outbox.drain();
    const code = codeIn(sms.messages.slice(before).at(-1)!.text);
    const raced = await atOnce(30, () =>
      call(me, 'fuzzion', { payload: offer, intent: 'merge', challenge: started.json().payload, code }),
    );
    expect(raced.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(raced.filter((a) => a.statusCode >= 500)).toEqual([]);
    expect(await closed(secondFactor.userId)).not.toBeNull();
  });

  it('declines once of thirty declines at once, and a merge racing a decline on one offer leaves exactly one outcome', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const spare = `race.${other.userId.slice(0, 8)}@example.be`;
    await addEmail(other.userId, spare);
    const payload = await offerFor(me, spare);
    const answers = await atOnce(30, () => call(me, 'fuzzion/finish', { payload, intent: 'decline' }));
    expect(statusCounts(answers)).toEqual({ 200: 1, 409: 29 });
    expect(await emailsOf(other.userId)).toEqual([other.email]);

    const third = await makeUser(server, { methods: [] });
    const extra = `race2.${third.userId.slice(0, 8)}@example.be`;
    await addEmail(third.userId, extra);
    const offer = await offerFor(me, extra);
    const raced = await atOnce(30, (i) =>
      call(me, 'fuzzion/finish', { payload: offer, intent: i % 2 === 0 ? 'merge' : 'decline' }),
    );
    expect(statusCounts(raced)).toEqual({ 200: 1, 409: 29 });
    const outcome = raced.find((a) => a.statusCode === 200)!.json().data.outcome as string;
    // Merged: the third account is closed and its addresses are mine; declined: it is open and keeps its own.
    expect((await closed(third.userId)) === null).toBe(outcome === 'declined');
    expect((await emailsOf(third.userId)).includes(third.email)).toBe(outcome === 'declined');
  });
});

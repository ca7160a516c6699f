// The way to a merge through the API (POST /api/fuzzion/offer, /code, /fuzzion, /password, /card), on
// both databases, from the attacker's side too: no step without its proof, the other account's
// password counted against its own sign-in limits, a decline only where the other account keeps an
// email and a phone, and thirty finishes at once with one winner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { nowIso } from '../db/index.ts';
import { newId } from '../sessions/tokens.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { freshMfa, makeUser, sessionFor, type Method } from '../testing/mfaKit.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();

describe.each(kinds)('the way to a merge on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  async function signedIn(methods: Method[] = []) {
    const user = await makeUser(server, { methods });
    const device = `fuzzion-${user.userId.slice(0, 8)}`;
    const token = await sessionFor(server, user.userId, device);
    await freshMfa(server, user.userId);
    return { ...user, device, token };
  }
  type Who = Awaited<ReturnType<typeof signedIn>>;
  const call = (who: Who, url: string, payload: object) => server.app.inject({
    method: 'POST', url: `/api/${url}`, headers: { 'x-device-id': who.device, authorization: `Bearer ${who.token}` }, payload,
  });
  /** The offer a signed-in person gets for adding another account's email. */
  async function offerFor(who: Who, email: string): Promise<string> {
    const res = await call(who, 'user/login', { email });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('email_in_use');
    return res.json().fuzzion.payload as string;
  }
  const closed = async (userId: string) => (await server.ctx.db.selectFrom('users').select('closed_at').where('id', '=', userId).executeTakeFirstOrThrow()).closed_at;
  const emailsOf = async (userId: string) => (await server.ctx.db.selectFrom('user_emails').select('value').where('user_id', '=', userId).execute()).map((r) => r.value);
  /** The code the duplicated address received last. */
  async function codeSentTo(email: string) {
    await server.ctx.outbox.drain();
    const mail = smtp.mails.filter((m) => m.to === email).at(-1);
    expect(mail).toBeDefined();
    return codeIn(mail!.raw);
  }
  async function addEmail(userId: string, value: string) {
    await server.ctx.db.insertInto('user_emails').values({ id: newId(), user_id: userId, value, is_default: 0, verified: 1, created_at: nowIso() }).execute();
  }

  it('describes the offer, then merges once the code sent to the duplicated address comes back', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);

    const offer = await call(me, 'fuzzion/offer', { payload });
    expect(offer.statusCode).toBe(200);
    // One proof, as the other account's sign-in asks no second factor; its only email cannot leave it.
    expect(offer.json()).toEqual({ kind: 'email', target: other.email, proofs: ['code', 'password', 'card'], needed: 1, proven: [], can_decline: false });

    const sent = await call(me, 'fuzzion/code', { payload });
    expect(sent.statusCode).toBe(200);
    expect(sent.json().expires_in).toBeGreaterThan(0);
    const code = await codeSentTo(other.email);
    const wrong = await call(me, 'fuzzion', { payload, intent: 'merge', challenge: sent.json().challenge, code: code === '00000000' ? '11111111' : '00000000' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().code).toBe('invalid_code');
    expect(await closed(other.userId)).toBeNull();

    const done = await call(me, 'fuzzion', { payload, intent: 'merge', challenge: sent.json().challenge, code });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, mfa: [], data: { outcome: 'merged' } });
    expect(done.json().data.emails).toEqual([{ value: me.email, primary: true }, { value: other.email, primary: false }]);
    expect(await closed(other.userId)).not.toBeNull();
    expect((await emailsOf(me.userId)).sort()).toEqual([me.email, other.email].sort());
    // The offer is spent: nothing more happens with it.
    expect((await call(me, 'fuzzion/offer', { payload })).json().code).toBe('merge_unavailable');
  });

  it('asks two proofs when the other account has a second factor, then merges: password, then card', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: ['email'] });
    const number = `5065${String(Date.now()).slice(-8)}${String(Math.floor(Math.random() * 1e4)).padStart(4, '0')}`;
    await server.ctx.db.insertInto('cards').values({ id: newId(), number, user_id: other.userId, activated_at: nowIso(), created_at: nowIso() }).execute();
    const payload = await offerFor(me, other.email);
    expect((await call(me, 'fuzzion/offer', { payload })).json()).toMatchObject({ needed: 2 });

    const first = await call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ done: false, payload, mfa: ['code', 'card'] });
    expect(await closed(other.userId)).toBeNull();
    // The same proof twice is still one proof.
    expect((await call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD })).json()).toMatchObject({ done: false });

    const wrongCard = await call(me, 'fuzzion/card', { payload, intent: 'merge', card: '5065 0000 9999 9999' });
    expect(wrongCard.statusCode).toBe(400);
    expect(wrongCard.json().code).toBe('invalid_card_number');
    const second = await call(me, 'fuzzion/card', { payload, intent: 'merge', card: number.replace(/(\d{4})/g, '$1 ').trim() });
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
    expect(await closed(other.userId)).not.toBeNull();
    const cards = await server.ctx.db.selectFrom('cards').select('user_id').where('number', '=', number).executeTakeFirstOrThrow();
    expect(cards.user_id).toBe(me.userId);
  });

  it('counts wrong passwords against the other account\'s own sign-in limits', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);
    const limit = server.ctx.config.login.maxFailsPerUserIp;
    for (let i = 0; i < limit; i++) {
      const res = await call(me, 'fuzzion/password', { payload, intent: 'merge', password: `Wrong-${i}-password!` });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_credentials');
    }
    expect((await call(me, 'fuzzion/password', { payload, intent: 'merge', password: 'Wrong-last-password!' })).statusCode).toBe(429);
    // The other account's sign-in from this address is paused too: the guesses were its own.
    const signIn = await server.app.inject({ method: 'POST', url: '/api/token', headers: { 'x-device-id': 'fuzzion-other-01' }, payload: { username: other.email, password: DEMO_PASSWORD } });
    expect(signIn.statusCode).toBe(429);
    const failures = await server.ctx.db.selectFrom('security_events').select('id').where('user_id', '=', other.userId).where('type', '=', 'login_failed').execute();
    expect(failures.length).toBeGreaterThanOrEqual(limit);
    expect(await closed(other.userId)).toBeNull();
  });

  it('declines by taking the address off the other account where it keeps an email and a phone, and then lets it be added', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const spare = `spare.${other.userId.slice(0, 8)}@example.be`;
    await addEmail(other.userId, spare);
    const payload = await offerFor(me, spare);
    expect((await call(me, 'fuzzion/offer', { payload })).json()).toMatchObject({ can_decline: true });

    const done = await call(me, 'fuzzion/password', { payload, intent: 'decline', password: DEMO_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ done: true, data: { outcome: 'declined' } });
    expect(await emailsOf(other.userId)).toEqual([other.email]);
    expect(await closed(other.userId)).toBeNull();
    // Free now: adding it sends it a code.
    expect((await call(me, 'user/login', { email: spare })).statusCode).toBe(200);
  });

  it('refuses a decline that would leave the other account without an email, and writes nothing', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);
    const refused = await call(me, 'fuzzion/password', { payload, intent: 'decline', password: DEMO_PASSWORD });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('decline_unavailable');
    expect(await emailsOf(other.userId)).toEqual([other.email]);
    // The offer stands: the person may still merge.
    expect((await call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD })).json()).toMatchObject({ done: true, data: { outcome: 'merged' } });
  });

  it('reaches no step without its proof, whatever the browser sends', async () => {
    const me = await signedIn();
    const stranger = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);
    // Someone else's session with my offer; a made-up offer.
    expect((await call(stranger, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD })).json().code).toBe('merge_unavailable');
    expect((await call(me, 'fuzzion/offer', { payload: 'not-an-offer' })).json().code).toBe('merge_unavailable');
    // A code for another purpose (adding a free address) proves nothing about this one.
    const added = await call(me, 'user/login', { email: `free.${me.userId.slice(0, 8)}@example.be` });
    const ownCode = await codeSentTo(`free.${me.userId.slice(0, 8)}@example.be`);
    const misuse = await call(me, 'fuzzion', { payload, intent: 'merge', challenge: added.json().payload, code: ownCode });
    expect(misuse.statusCode).toBe(410);
    expect(misuse.json().code).toBe('challenge_closed');
    // Without a recent second factor (or password) on the session: nothing.
    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).where('user_id', '=', me.userId).execute();
    expect((await call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD })).statusCode).toBe(403);
    // Bad input is a 400 with a stable code.
    await freshMfa(server, me.userId);
    const bad = await call(me, 'fuzzion/password', { payload, intent: 'steal', password: DEMO_PASSWORD });
    expect(bad.statusCode).toBe(400);
    expect(await closed(other.userId)).toBeNull();
  });

  it('finishes once of thirty finishes at once', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const payload = await offerFor(me, other.email);
    const answers = await atOnce(30, () => call(me, 'fuzzion/password', { payload, intent: 'merge', password: DEMO_PASSWORD }));
    expect(statusCounts(answers)).toEqual({ 200: 1, 409: 29 });
    expect(answers.filter((a) => a.statusCode === 409).every((a) => a.json().code === 'merge_unavailable')).toBe(true);
    expect((await emailsOf(me.userId)).sort()).toEqual([me.email, other.email].sort());
    const merges = await server.ctx.db.selectFrom('security_events').select('id').where('user_id', '=', me.userId).where('type', '=', 'accounts_merged').execute();
    expect(merges).toHaveLength(1);
  });

  it('declines once of thirty declines at once, and a merge racing a decline on one offer leaves exactly one outcome', async () => {
    const me = await signedIn();
    const other = await makeUser(server, { methods: [] });
    const spare = `race.${other.userId.slice(0, 8)}@example.be`;
    await addEmail(other.userId, spare);
    const payload = await offerFor(me, spare);
    const answers = await atOnce(30, () => call(me, 'fuzzion/password', { payload, intent: 'decline', password: DEMO_PASSWORD }));
    expect(statusCounts(answers)).toEqual({ 200: 1, 409: 29 });
    expect(await emailsOf(other.userId)).toEqual([other.email]);

    const third = await makeUser(server, { methods: [] });
    const extra = `race2.${third.userId.slice(0, 8)}@example.be`;
    await addEmail(third.userId, extra);
    const offer = await offerFor(me, extra);
    const raced = await atOnce(30, (i) => call(me, 'fuzzion/password', { payload: offer, intent: i % 2 === 0 ? 'merge' : 'decline', password: DEMO_PASSWORD }));
    expect(statusCounts(raced)).toEqual({ 200: 1, 409: 29 });
    const outcome = raced.find((a) => a.statusCode === 200)!.json().data.outcome as string;
    // Merged: the third account is closed and its addresses are mine; declined: it is open and keeps its own.
    expect(await closed(third.userId) === null).toBe(outcome === 'declined');
    expect((await emailsOf(third.userId)).includes(third.email)).toBe(outcome === 'declined');
  });
});

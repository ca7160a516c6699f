// The account's emails and phone numbers (POST /api/user/login, /confirm, /primary; DELETE) on both
// databases: proof by a code over real SMTP and the SMS provider, the rules that keep an account
// reachable, the notices, the merge payload for another account's address, and the races.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { UserAnswer } from '../../contract/schemas.ts';
import { nowIso } from '../db/index.ts';
import { addMethod } from '../identity/second-factors.ts';
import { newId } from '../sessions/tokens.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, passwordSignIn, type TestServer } from '../testing/harness.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { signedInUser } from '../testing/mfaKit.ts';
import { codeIn } from '../testing/peers.ts';

const kinds = await databaseKinds();

describe.each(kinds)('emails and phone numbers on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  let n = 0;

  useServerWithPeers(kind, { SMS_PROVIDER_KEY: 'provider-key' }, (peers) => {
    ({ server, smtp, sms } = peers);
  });

  const signedIn = (methods: ('email' | 'sms')[] = ['email']) =>
    signedInUser(server, { methods }, (userId) => `contacts-${userId.slice(0, 8)}`);
  type Who = Awaited<ReturnType<typeof signedIn>>;
  const call = (method: 'POST' | 'DELETE', url: string, who: Who, payload: object) =>
    server.app.inject({
      method,
      url,
      headers: { 'x-device-id': who.device, authorization: `Bearer ${who.token}` },
      payload,
    });
  const fresh = () => `added.${process.pid}.${++n}@example.be`;
  const mailsTo = (to: string) => smtp.mails.filter((m) => m.to === to).map((m) => m.raw);
  const contactsOf = async (userId: string) => ({
    email: await server.ctx.db
      .selectFrom('user_emails')
      .select(['value', 'is_default', 'verified'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
    phone: await server.ctx.db
      .selectFrom('user_phones')
      .select(['value', 'is_default', 'verified'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),
  });
  /** A second email on the account, verified, optionally with an email second factor on it. */
  async function secondEmail(who: Who, withMethod: boolean) {
    const value = fresh();
    await server.ctx.db
      .insertInto('user_emails')
      .values({ id: newId(), user_id: who.userId, value, is_default: 0, verified: 1, created_at: nowIso() })
      .execute();
    if (withMethod)
      await addMethod(server.ctx.db, { userId: who.userId, method: 'email', target: value, primary: false });
    return value;
  }

  it('adds an email proven by the code sent to it, verified and not primary, and tells the primary address', async () => {
    const who = await signedIn();
    const email = fresh();
    const started = await call('POST', '/api/user/login', who, { email: ` ${email.toUpperCase()} ` });
    expect(started.statusCode).toBe(200);
    const { payload, data } = started.json();
    expect(data).toMatchObject({ kind: 'email', target: email });
    const wrong = await call('POST', '/api/user/login/confirm', who, { payload, code: '00000000' });
    expect(wrong.statusCode).toBe(422);
    expect((await contactsOf(who.userId)).email).toHaveLength(1);
    const confirmed = await call('POST', '/api/user/login/confirm', who, {
      payload,
      code: codeIn(mailsTo(email).at(-1)!),
    });
    expect(confirmed.statusCode).toBe(200);
    expect(v.parse(UserAnswer, confirmed.json()).data.email).toEqual([
      { value: who.email, default: true, verified: true },
      { value: email, default: false, verified: true },
    ]);
    expect(mailsTo(who.email).at(-1)).toContain(`${email} was added to your Tessera account`);
    // The code is spent: it adds nothing twice.
    expect(
      (await call('POST', '/api/user/login/confirm', who, { payload, code: codeIn(mailsTo(email).at(-1)!) }))
        .statusCode,
    ).toBe(410);
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', who.userId)
      .where('type', '=', 'email_added')
      .execute();
    expect(events).toHaveLength(1);
  });

  it('adds a phone number by a code sent by SMS', async () => {
    const who = await signedIn();
    const phone = `+32475${String(process.pid % 1000).padStart(3, '0')}${String(++n).padStart(3, '0')}`;
    const started = await call('POST', '/api/user/login', who, { phone });
    expect(started.statusCode).toBe(200);
    const text = sms.messages.filter((m) => m.to === phone).at(-1)!.text;
    expect(text).toContain('to your Tessera account');
    const confirmed = await call('POST', '/api/user/login/confirm', who, {
      payload: started.json().payload,
      code: codeIn(text),
    });
    expect(confirmed.statusCode).toBe(200);
    expect((await contactsOf(who.userId)).phone.map((p) => p.value)).toContain(phone);
  });

  it("answers the spec's messages for an invalid, an own and another account's address, with the merge payload", async () => {
    const who = await signedIn();
    const other = await signedIn();
    const invalid = await call('POST', '/api/user/login', who, { email: 'not an email' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'invalid_email', message: 'The email provided is invalid' });
    expect((await call('POST', '/api/user/login', who, { phone: '12' })).json()).toMatchObject({
      code: 'invalid_phone',
      message: 'The phone number provided is invalid',
    });
    expect(
      (await call('POST', '/api/user/login', who, { email: 'a@example.be', phone: '+32470000000' })).statusCode,
    ).toBe(400);
    const own = await call('POST', '/api/user/login', who, { email: who.email });
    expect(own.statusCode).toBe(409);
    expect(own.json()).toMatchObject({ code: 'email_unavailable', message: 'This email is invalid or already used' });
    // Another account's address is answered as a free one (its code is sent): only the code's
    // answer says "already in use", with the merge offer.
    const taken = await call('POST', '/api/user/login', who, { email: other.email });
    expect(taken.statusCode).toBe(200);
    expect(taken.json()).toMatchObject({ data: { kind: 'email', target: other.email } });
    expect(JSON.stringify(taken.json())).not.toMatch(/fuzzion|in_use/);
    await server.ctx.outbox.drain();
    const confirmed = await call('POST', '/api/user/login/confirm', who, {
      payload: taken.json().payload,
      code: codeIn(mailsTo(other.email).at(-1)!),
    });
    expect(confirmed.statusCode).toBe(409);
    expect(confirmed.json()).toMatchObject({
      code: 'email_in_use',
      message: 'This email is already in use. Please use another one.',
      fuzzion: { kind: 'email', target: other.email },
    });
    expect(confirmed.json().fuzzion.payload).toMatch(/\S{20,}/);
    expect(
      await server.ctx.db
        .selectFrom('user_emails')
        .select('user_id')
        .where('value', '=', other.email)
        .executeTakeFirstOrThrow(),
    ).toEqual({ user_id: other.userId });
    const takenPhone = await call('POST', '/api/user/login', who, { phone: other.phone });
    expect(takenPhone.statusCode).toBe(200);
  });

  it('asks a recent second factor for every change', async () => {
    const who = await signedIn();
    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).where('user_id', '=', who.userId).execute();
    for (const [method, url, payload] of [
      ['POST', '/api/user/login', { email: fresh() }],
      ['POST', '/api/user/login/primary', { email: who.email }],
      ['DELETE', '/api/user/login', { email: who.email }],
      ['POST', '/api/user/login/confirm', { payload: 'x', code: '1' }],
    ] as const) {
      const res = await call(method, url, who, payload);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code).toBe('step_up_required');
    }
  });

  it('keeps the last email, the last phone, the primary one, and the one behind the last email or SMS second factor', async () => {
    const who = await signedIn(['email']);
    expect((await call('DELETE', '/api/user/login', who, { email: who.email })).json()).toMatchObject({
      code: 'last_contact',
    });
    expect((await call('DELETE', '/api/user/login', who, { phone: who.phone })).json()).toMatchObject({
      code: 'last_contact',
    });
    const extra = await secondEmail(who, false);
    expect((await call('DELETE', '/api/user/login', who, { email: who.email })).json()).toMatchObject({
      code: 'primary_contact',
    });
    // The account's only email second factor is on the primary; move it to the extra address's side:
    await server.ctx.db
      .updateTable('mfa_methods')
      .set({ target: extra })
      .where('user_id', '=', who.userId)
      .where('method', '=', 'email')
      .execute();
    const behind = await call('DELETE', '/api/user/login', who, { email: extra });
    expect(behind.statusCode).toBe(409);
    expect(behind.json()).toMatchObject({
      code: 'last_method',
      message: 'You cannot delete your last email or phone verification method.',
    });
    expect((await call('DELETE', '/api/user/login', who, { email: 'nobody@example.be' })).statusCode).toBe(404);
    expect((await contactsOf(who.userId)).email).toHaveLength(2);
  });

  it('deletes an address with the second factors that send to it, and tells that address', async () => {
    const who = await signedIn(['email', 'sms']);
    const extra = await secondEmail(who, true);
    const res = await call('DELETE', '/api/user/login', who, { email: extra });
    expect(res.statusCode).toBe(200);
    expect(v.parse(UserAnswer, res.json()).data.email.map((e) => e.value)).toEqual([who.email]);
    const left = await server.ctx.db
      .selectFrom('mfa_methods')
      .select('target')
      .where('user_id', '=', who.userId)
      .execute();
    expect(left.map((m) => m.target)).not.toContain(extra);
    expect(mailsTo(extra).at(-1)).toContain(`${extra} was removed from your Tessera account`);
  });

  it("makes primary only a verified address with a second factor, with the spec's switch error, and tells the former one", async () => {
    const who = await signedIn(['email']);
    const bare = await secondEmail(who, false);
    const refused = await call('POST', '/api/user/login/primary', who, { email: bare });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'primary_needs_mfa',
      message: 'An error occurred during the switch.',
    });
    const protectedOne = await secondEmail(who, true);
    const switched = await call('POST', '/api/user/login/primary', who, { email: protectedOne });
    expect(switched.statusCode).toBe(200);
    expect(v.parse(UserAnswer, switched.json()).data.email[0]).toEqual({
      value: protectedOne,
      default: true,
      verified: true,
    });
    expect(mailsTo(who.email).at(-1)).toContain(`is now ${protectedOne}`);
  });

  it('leaves exactly one primary after thirty switches at once between two addresses', async () => {
    const who = await signedIn(['email']);
    const a = await secondEmail(who, true);
    const answers = await atOnce(30, (i) =>
      call('POST', '/api/user/login/primary', who, { email: i % 2 === 0 ? a : who.email }),
    );
    expect(statusCounts(answers)).toEqual({ 200: 30 });
    const defaults = (await contactsOf(who.userId)).email.filter((e) => e.is_default === 1);
    expect(defaults).toHaveLength(1);
  });

  it('gives a contested new address to the first account that confirms it', async () => {
    const [first, second] = [await signedIn(), await signedIn()];
    const email = fresh();
    const a = (await call('POST', '/api/user/login', first, { email })).json().payload as string;
    const codeA = codeIn(mailsTo(email).at(-1)!);
    const b = (await call('POST', '/api/user/login', second, { email })).json().payload as string;
    const codeB = codeIn(mailsTo(email).at(-1)!);
    const [ra, rb] = await atOnce(2, (i) =>
      i === 0
        ? call('POST', '/api/user/login/confirm', first, { payload: a, code: codeA })
        : call('POST', '/api/user/login/confirm', second, { payload: b, code: codeB }),
    );
    expect([ra!.statusCode, rb!.statusCode].sort()).toEqual([200, 409]);
    const owners = await server.ctx.db.selectFrom('user_emails').select('user_id').where('value', '=', email).execute();
    expect(owners).toHaveLength(1);
  });

  describe('"this wasn\'t me"', () => {
    const undoLinkIn = (mail: string) => /\/undo-change#([\w-]+)/.exec(mail.replace(/=\r?\n/g, ''))?.[1];
    const undo = (token: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/account/undo',
        headers: { 'x-device-id': 'undo-device-0001' },
        payload: { token },
      });

    it("undoes an added address from its notice's link once, ends every session and locks the password", async () => {
      const who = await signedIn();
      const email = fresh();
      const { payload } = (await call('POST', '/api/user/login', who, { email })).json();
      expect(
        (await call('POST', '/api/user/login/confirm', who, { payload, code: codeIn(mailsTo(email).at(-1)!) }))
          .statusCode,
      ).toBe(200);
      const token = undoLinkIn(mailsTo(who.email).at(-1)!)!;
      expect(token).toBeTruthy();
      const res = await undo(token);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ undone: 'added' });
      expect((await contactsOf(who.userId)).email.map((e) => e.value)).toEqual([who.email]);
      // Every session is over, and the password no longer signs in.
      expect(
        (
          await server.app.inject({
            method: 'GET',
            url: '/api/user',
            headers: { 'x-device-id': who.device, authorization: `Bearer ${who.token}` },
          })
        ).statusCode,
      ).toBe(401);
      const password = await passwordSignIn(server, who.email, 'Tessera-demo-2026!', { 'x-device-id': who.device });
      expect(password.statusCode).toBe(400);
      // Spent: a second use (or a made-up token) says the same.
      expect((await undo(token)).json()).toMatchObject({ code: 'undo_unavailable' });
      expect((await undo('x'.repeat(43))).statusCode).toBe(410);
    });

    it('takes the second factor on an undone address with it, and makes another one primary', async () => {
      const who = await signedIn(['email', 'sms']);
      const email = fresh();
      const { payload } = (await call('POST', '/api/user/login', who, { email })).json();
      await call('POST', '/api/user/login/confirm', who, { payload, code: codeIn(mailsTo(email).at(-1)!) });
      // The stranger also made the new address the account's primary second factor.
      const db = server.ctx.db;
      await db.updateTable('mfa_methods').set({ is_primary: 0 }).where('user_id', '=', who.userId).execute();
      const { id } = await db
        .selectFrom('mfa_methods')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow();
      await db
        .insertInto('mfa_methods')
        .values({
          id: Number(id) + 1,
          user_id: who.userId,
          method: 'email',
          target: email,
          secret: null,
          is_primary: 1,
          last_step: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      const token = undoLinkIn(mailsTo(who.email).at(-1)!)!;
      expect((await undo(token)).json()).toEqual({ undone: 'added' });
      const left = await db
        .selectFrom('mfa_methods')
        .select(['method', 'target', 'is_primary'])
        .where('user_id', '=', who.userId)
        .where('method', '!=', 'totpRecovery')
        .execute();
      expect(left.map((m) => m.target)).not.toContain(email);
      expect(left.filter((m) => m.is_primary === 1)).toHaveLength(1);
    });

    it('puts back a removed address and a former primary', async () => {
      const who = await signedIn(['email']);
      const extra = await secondEmail(who, true);
      expect((await call('POST', '/api/user/login/primary', who, { email: extra })).statusCode).toBe(200);
      const primaryToken = undoLinkIn(mailsTo(who.email).at(-1)!)!;
      expect((await undo(primaryToken)).json()).toEqual({ undone: 'primary' });
      expect((await contactsOf(who.userId)).email.find((e) => e.is_default === 1)?.value).toBe(who.email);

      const other = await signedIn(['email', 'sms']);
      const removable = await secondEmail(other, false);
      expect((await call('DELETE', '/api/user/login', other, { email: removable })).statusCode).toBe(200);
      const removedToken = undoLinkIn(mailsTo(removable).at(-1)!)!;
      expect((await undo(removedToken)).json()).toEqual({ undone: 'removed' });
      expect((await contactsOf(other.userId)).email.map((e) => e.value)).toContain(removable);
    });
  });
});

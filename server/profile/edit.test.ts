// The profile's changes (PUT /api/user, PUT /api/user/iban) on both databases: the rules of each
// field enforced whatever the browser sends, the step-up before the bank account, the notices to
// the primary email and phone over real SMTP and the SMS provider, and the security events.
import { describe, expect, it } from 'vitest';
import { UserAnswer } from '../../contract/schemas.ts';
import * as v from 'valibot';
import { freshMfa, signedInUser } from '../testing/mfaKit.ts';
import { databaseKinds, type TestServer } from '../testing/harness.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';

const kinds = await databaseKinds();

describe.each(kinds)('profile changes on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;

  useServerWithPeers(kind, { SMS_PROVIDER_KEY: 'provider-key' }, (peers) => {
    ({ server, smtp, sms } = peers);
  });

  /** A signed-in account of its own (a trusted device: no code asked), its second factor fresh. */
  const signedIn = (methods: ('email' | 'sms')[] = ['email']) =>
    signedInUser(server, { methods }, (userId) => `profile-${userId.slice(0, 8)}`);

  const put = (url: string, who: { token: string; device: string }, payload: unknown) =>
    server.app.inject({
      method: 'PUT',
      url,
      headers: { 'x-device-id': who.device, authorization: `Bearer ${who.token}` },
      payload: payload as object,
    });
  const info = {
    firstname: 'Anne-Sophie',
    lastname: "O'Neill Müller",
    birthdate: '1990-02-28',
    gender: 'female',
    language: 'fr',
  };
  const eventsOf = (userId: string, type: string) =>
    server.ctx.db
      .selectFrom('security_events')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .execute();

  it('saves names, birth date, gender and language, and answers the profile as it is now', async () => {
    const who = await signedIn();
    const res = await put('/api/user', who, { ...info, firstname: '  Zoë  ', lastname: 'Ñúñez  de la Peña' });
    expect(res.statusCode).toBe(200);
    const profile = v.parse(UserAnswer, res.json()).data;
    expect(profile).toMatchObject({
      firstname: 'Zoë',
      lastname: 'Ñúñez de la Peña',
      birthdate: '1990-02-28',
      gender: 'female',
      language: 'fr',
    });
    expect(await eventsOf(who.userId, 'profile_updated')).toHaveLength(1);
  });

  it('refuses invalid fields whole, naming each, and writes nothing', async () => {
    const who = await signedIn();
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    for (const [change, field, code] of [
      [{ firstname: '   ' }, 'firstname', 'required'],
      [{ lastname: 'x'.repeat(101) }, 'lastname', 'too_long'],
      [{ firstname: 'R2-D2' }, 'firstname', 'invalid'],
      [{ birthdate: tomorrow }, 'birthdate', 'future'],
      [{ birthdate: '2023-02-30' }, 'birthdate', 'invalid'],
      [{ birthdate: '1850-01-01' }, 'birthdate', 'too_early'],
    ] as const) {
      const res = await put('/api/user', who, { ...info, ...change });
      expect(res.statusCode, JSON.stringify(change)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_failed', fields: [{ field, code }] });
    }
    const user = await server.ctx.db
      .selectFrom('users')
      .select(['firstname', 'language'])
      .where('id', '=', who.userId)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ firstname: 'Test', language: 'en' });
  });

  it('refuses a language, a gender or a field it does not know, and a visitor', async () => {
    const who = await signedIn();
    expect((await put('/api/user', who, { ...info, language: 'es' })).statusCode).toBe(400);
    expect((await put('/api/user', who, { ...info, gender: 'robot' })).statusCode).toBe(400);
    expect((await put('/api/user', who, { ...info, admin: true })).statusCode).toBe(400);
    const visitor = await server.app.inject({
      method: 'PUT',
      url: '/api/user',
      headers: { 'x-device-id': 'visitor-device-1' },
      payload: info,
    });
    expect(visitor.statusCode).toBe(401);
  });

  it("sends the account's messages in the language chosen", async () => {
    const who = await signedIn();
    expect((await put('/api/user', who, { ...info, language: 'nl' })).statusCode).toBe(200);
    await freshMfa(server, who.userId);
    expect((await put('/api/user/iban', who, { country: 'BE', iban: 'BE68 5390 0754 7034' })).statusCode).toBe(200);
    expect(smtp.mails.filter((m) => m.to === who.email).at(-1)!.raw).toContain('bankrekening');
  });

  describe('the bank account', () => {
    it('needs a recent second factor', async () => {
      const who = await signedIn();
      await server.ctx.db
        .updateTable('sessions')
        .set({ mfa_at: '2000-01-01T00:00:00.000Z' })
        .where('user_id', '=', who.userId)
        .execute();
      const res = await put('/api/user/iban', who, { country: 'BE', iban: 'BE68539007547034' });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('step_up_required');
      const user = await server.ctx.db
        .selectFrom('users')
        .select('iban')
        .where('id', '=', who.userId)
        .executeTakeFirstOrThrow();
      expect(user.iban).toBeNull();
    });

    it('is saved as typed in any spacing or case, shown masked, and told to the primary email and phone', async () => {
      const who = await signedIn(['email', 'sms']);
      const mailsBefore = smtp.mails.length;
      const res = await put('/api/user/iban', who, { country: 'LU', iban: ' lu28 0019 4006 4475 0000 ' });
      expect(res.statusCode).toBe(200);
      const banking = v.parse(UserAnswer, res.json()).data.banking!;
      expect(banking).toEqual({ iban: 'LU28 ••••  ••••  ••••  0000'.replace(/ {2}/g, ' '), country: 'LU' });
      expect(res.body).not.toContain('0019');
      const stored = await server.ctx.db
        .selectFrom('users')
        .select(['iban', 'iban_country'])
        .where('id', '=', who.userId)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ iban: 'LU280019400644750000', iban_country: 'LU' });
      const mail = smtp.mails.slice(mailsBefore).find((m) => m.to === who.email);
      expect(mail?.raw).toContain(banking.iban.slice(-4));
      expect(mail?.raw).not.toContain('00194006');
      expect(sms.messages.filter((m) => m.to === who.phone).at(-1)!.text).toContain('bank account');
      const [event] = await eventsOf(who.userId, 'iban_changed');
      expect(JSON.parse(event!.detail!)).toEqual({ iban: banking.iban, country: 'LU' });
    });

    it("refuses a wrong checksum, a wrong length or an empty IBAN with the spec's message, and changes nothing", async () => {
      const who = await signedIn();
      for (const [country, iban] of [
        ['BE', 'BE68539007547035'],
        ['BE', 'BE6853900754703'],
        ['BE', ''],
        [undefined, 'BE68539007547035'],
        // Valid, but outside Europe's part of the registry.
        [undefined, 'BR1800360305000010009795493C1'],
      ]) {
        const res = await put('/api/user/iban', who, { country, iban });
        expect(res.statusCode, `${country} ${iban}`).toBe(422);
        expect(res.json()).toMatchObject({ code: 'iban_invalid', message: 'The provided IBAN is invalid.' });
      }
      // A country outside Europe's part of the registry is not offered at all.
      expect(
        (await put('/api/user/iban', who, { country: 'BR', iban: 'BR1800360305000010009795493C1' })).statusCode,
      ).toBe(400);
      const user = await server.ctx.db
        .selectFrom('users')
        .select('iban')
        .where('id', '=', who.userId)
        .executeTakeFirstOrThrow();
      expect(user.iban).toBeNull();
      expect(await eventsOf(who.userId, 'iban_changed')).toHaveLength(0);
    });

    it("takes a valid IBAN with no country, or an empty one, as the IBAN's own country", async () => {
      const who = await signedIn();
      for (const payload of [{ iban: 'BE68 5390 0754 7034' }, { country: '', iban: 'NL91 ABNA 0417 1643 00' }]) {
        const res = await put('/api/user/iban', who, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(200);
      }
      const stored = await server.ctx.db
        .selectFrom('users')
        .select(['iban', 'iban_country'])
        .where('id', '=', who.userId)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ iban: 'NL91ABNA0417164300', iban_country: 'NL' });
      const events = await eventsOf(who.userId, 'iban_changed');
      expect(events.map((e) => JSON.parse(e.detail!).country)).toEqual(['BE', 'NL']);
    });

    it("refuses another country's IBAN with a code of its own that names both, and keeps the account as it was", async () => {
      const who = await signedIn();
      expect((await put('/api/user/iban', who, { country: 'BE', iban: 'BE68539007547034' })).statusCode).toBe(200);
      const res = await put('/api/user/iban', who, { country: 'BE', iban: 'NL91ABNA0417164300' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'iban_country_mismatch', country: 'NL', chosen: 'BE' });
      const stored = await server.ctx.db
        .selectFrom('users')
        .select(['iban', 'iban_country'])
        .where('id', '=', who.userId)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ iban: 'BE68539007547034', iban_country: 'BE' });
      expect(await eventsOf(who.userId, 'iban_changed')).toHaveLength(1);
    });

    it('answers input of the wrong shape with 400 and its code, never a 500', async () => {
      const who = await signedIn();
      for (const payload of [
        { country: 'be', iban: 'BE68539007547034' },
        { country: null, iban: 'BE68539007547034' },
        { country: 'BE' },
        { iban: 42 },
        { iban: 'BE68539007547034', extra: true },
        { iban: 'x'.repeat(65) },
      ]) {
        const res = await put('/api/user/iban', who, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().code, JSON.stringify(payload)).toBe('validation_failed');
      }
      expect(await eventsOf(who.userId, 'iban_changed')).toHaveLength(0);
    });
  });
});

// Managing methods beyond the basics: the list with what can be added, voice and WhatsApp methods,
// the Luxembourg number plan, replacing a target or an authenticator, the delete rules, the merge
// offer, lookups throttled, and the security events all of it leaves.
import { TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, type TestServer } from '../testing/harness.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { codeIn } from '../testing/peers.ts';
import { client, makeUser, signedInUser } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();
type Listed = { id: number; method: string; target?: string; primary: boolean; recovery_keys_left?: number };

describe.each(kinds)('second-factor methods on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  let api: ReturnType<typeof client>;
  const mailTo = (to: string) => codeIn(smtp.mails.filter((m) => m.to === to).at(-1)!.raw);
  const textTo = (to: string) => codeIn(sms.messages.filter((m) => m.to === to).at(-1)!.text);

  useServerWithPeers(kind, {}, async (peers) => {
    ({ server, smtp, sms } = peers);
    api = client(server);
  });

  /** A signed-in account with these methods, its session freshly checked. */
  const signedIn = async (
    methods: Parameters<typeof makeUser>[1]['methods'],
    device: string,
    options: { forced?: boolean; totpSecret?: string } = {},
  ) => {
    const { device: _device, ...user } = await signedInUser(server, { methods, ...options }, device);
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, host?: string) =>
      api.call(method, url, user.token, device, payload, host);
    const list = async () => (await call('GET', '/api/mfa')).json().data as Listed[];
    return { ...user, call, list };
  };

  it('lists the methods, and with includeAll the kinds that can still be added', async () => {
    const user = await signedIn(['email', 'totp'], 'list-device-0001', { totpSecret: 'JBSWY3DPEHPK3PXP' });
    const plain = (await user.call('GET', '/api/mfa')).json();
    expect(plain.available).toBeUndefined();
    expect(plain.data).toEqual([
      { id: user.ids.email, method: 'email', target: expect.stringMatching(/^m\*\*\*@example\.be$/), primary: true },
      { id: user.ids.totp, method: 'totp', primary: false },
    ]);
    for (const query of ['includeAll', 'includeAll=true', 'includeAll=1']) {
      const all = (await user.call('GET', `/api/mfa?${query}`)).json();
      expect(all.available).toEqual([
        { id: -1, method: 'email' },
        { id: -2, method: 'sms' },
        { id: -4, method: 'call' },
        { id: -5, method: 'whatsapp' },
        // Passkeys: as many as the person likes.
        { id: -6, method: 'passkey' },
      ]);
    }
    const without = await signedIn(['email'], 'list-device-0002');
    expect(
      (await without.call('GET', '/api/mfa?includeAll')).json().available.map((a: { id: number }) => a.id),
    ).toEqual([-1, -2, -3, -4, -5, -6]);
    const bad = await user.call('GET', '/api/mfa?includeAll=maybe');
    expect(bad.statusCode).toBe(400);
    expect((await user.call('GET', '/api/mfa?other=1')).json().code).toBe('validation_failed');
  });

  it('tells on the recovery entry how many keys are unused', async () => {
    const user = await signedIn(['email'], 'keys-device-0001');
    const started = (await user.call('GET', '/api/mfa/-3/activate')).json();
    const code = new TOTP({ secret: started.data.secret, digits: 6, period: 30 }).generate();
    expect(started.data.otpauth_url).toContain(encodeURIComponent(user.email));
    const keys = (await user.call('POST', '/api/mfa/activate', { payload: started.payload, code })).json()
      .recovery_keys as string[];
    const login = await api.password(user.email, 'keys-device-0002');
    const recovery = (login.json().mfa.methods as Listed[]).find((m) => m.method === 'totpRecovery')!;
    expect(recovery.recovery_keys_left).toBeUndefined(); // not told to a password alone
    const challenge = (await api.challenge(login.json().mfa.payload, recovery.id, 'keys-device-0002')).json();
    expect(
      (await api.verify(challenge.payload, keys[3]!.replace('-', ''), 'keys-device-0002')).json().recovery_keys_left,
    ).toBe(9);
    expect((await user.list()).find((m) => m.method === 'totpRecovery')!.recovery_keys_left).toBe(9);
  });

  it('adds voice-call and WhatsApp methods, each receiving its codes its own way', async () => {
    const user = await signedIn(['email'], 'voice-device-0001');
    const phone = '+32472111222';
    const call = await user.call('GET', `/api/mfa/-4/activate?target=${encodeURIComponent('0472 11 12 22')}`);
    expect(call.statusCode).toBe(200);
    expect(call.json().data).toMatchObject({
      method: 'call',
      target: '+32 ••• •• •• 22',
      expires_in: 900,
      resend_in: 30,
    });
    expect(sms.messages.at(-1)).toMatchObject({ channel: 'call', to: phone });
    const added = await user.call('POST', '/api/mfa/activate', { payload: call.json().payload, code: textTo(phone) });
    expect(added.json()).toMatchObject({ method: 'call' });
    const whatsapp = await user.call('GET', `/api/mfa/-5/activate?target=${encodeURIComponent(phone)}`);
    expect(sms.messages.at(-1)).toMatchObject({ channel: 'whatsapp', to: phone });
    expect(
      (await user.call('POST', '/api/mfa/activate', { payload: whatsapp.json().payload, code: textTo(phone) }))
        .statusCode,
    ).toBe(200);
    expect((await user.list()).map((m) => m.method)).toEqual(['email', 'call', 'whatsapp']);
    // The verified number joined the contacts.
    const contact = await server.ctx.db
      .selectFrom('user_phones')
      .select(['verified', 'user_id'])
      .where('value', '=', phone)
      .executeTakeFirstOrThrow();
    expect(contact).toEqual({ verified: 1, user_id: user.userId });
    // At sign-in, a call method's code comes by voice.
    const login = await api.password(user.email, 'voice-device-0002');
    const voice = (login.json().mfa.methods as Listed[]).find((m) => m.method === 'call')!;
    await api.challenge(login.json().mfa.payload, voice.id, 'voice-device-0002');
    expect(sms.messages.at(-1)!.channel).toBe('call');
  });

  it("reads a local number with the variant's country", async () => {
    const user = await signedIn(['email'], 'lu-device-00001');
    const started = await user.call(
      'GET',
      `/api/mfa/-2/activate?target=${encodeURIComponent('691 234 567')}`,
      undefined,
      'account.lu.localhost:3000',
    );
    expect(started.statusCode).toBe(200);
    expect(sms.messages.at(-1)!.to).toBe('+352691234567');
    const be = await user.call('GET', `/api/mfa/-2/activate?target=${encodeURIComponent('691 234 567')}`);
    expect(be.json().code).toBe('invalid_phone');
  });

  it("replaces a method's target with edit, keeping its id, after the new one is proved", async () => {
    const user = await signedIn(['email', 'sms'], 'edit-device-0001');
    const fresh = `edited.${user.userId.slice(0, 6)}@example.be`;
    const started = await user.call(
      'GET',
      `/api/mfa/${user.ids.email}/activate?edit=true&target=${encodeURIComponent(fresh)}`,
    );
    expect(started.statusCode).toBe(200);
    expect(smtp.mails.at(-1)!.to).toBe(fresh);
    // Until the code comes back, nothing changed.
    expect((await user.list())[0]!.target).toBe(`m***@example.be`);
    const done = await user.call('POST', '/api/mfa/activate', { payload: started.json().payload, code: mailTo(fresh) });
    expect(done.json()).toEqual({ id: user.ids.email, method: 'email' });
    const listed = await user.list();
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ id: user.ids.email, target: 'e***@example.be', primary: true });
    // Without step-up, no edit.
    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).where('user_id', '=', user.userId).execute();
    expect(
      (await user.call('GET', `/api/mfa/${user.ids.email}/activate?edit=true&target=x%40example.be`)).json().code,
    ).toBe('step_up_required');
  });

  it('resets an authenticator with edit: new secret, new keys, the old ones dead', async () => {
    const old = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXQ';
    const user = await signedIn(['totp', 'email'], 'reset-device-0001', { totpSecret: old });
    expect((await user.call('GET', '/api/mfa/-3/activate')).statusCode).toBe(204);
    const first = (await user.call('GET', '/api/mfa/-3/activate?edit=true')).json();
    const firstKeys = (
      await user.call('POST', '/api/mfa/activate', {
        payload: first.payload,
        code: new TOTP({ secret: first.data.secret, digits: 6, period: 30 }).generate(),
      })
    ).json();
    expect(firstKeys).toMatchObject({ id: user.ids.totp, method: 'totp' });
    expect(firstKeys.recovery_keys).toHaveLength(10);
    const second = (await user.call('GET', `/api/mfa/${user.ids.totp}/activate?edit=true`)).json();
    const secondKeys = (
      await user.call('POST', '/api/mfa/activate', {
        payload: second.payload,
        code: new TOTP({ secret: second.data.secret, digits: 6, period: 30 }).generate(),
      })
    ).json().recovery_keys as string[];
    expect((await user.list()).filter((m) => m.method === 'totp' || m.method === 'totpRecovery')).toHaveLength(2);

    const signIn = async (method: 'totp' | 'totpRecovery', code: string, device: string) => {
      const login = (await api.password(user.email, device)).json();
      const id = (login.mfa.methods as Listed[]).find((m) => m.method === method)!.id;
      const challenge = (await api.challenge(login.mfa.payload, id, device)).json();
      return api.verify(challenge.payload, code, device);
    };
    expect(
      (await signIn('totp', new TOTP({ secret: old, digits: 6, period: 30 }).generate(), 'reset-device-0002'))
        .statusCode,
    ).toBe(422);
    expect(
      (await signIn('totpRecovery', firstKeys.recovery_keys[0].replace('-', ''), 'reset-device-0003')).statusCode,
    ).toBe(422);
    expect((await signIn('totpRecovery', secondKeys[0]!.replace('-', ''), 'reset-device-0004')).statusCode).toBe(200);
  });

  it("deletes with the spec's rules: never the last email or SMS method, the named or backup method becomes primary", async () => {
    const user = await signedIn(['totp', 'sms', 'email'], 'delete-device-001', {
      totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXR',
    });
    // A target that is not one of the user's methods: refused, nothing deleted.
    const wrongTarget = await user.call('DELETE', `/api/mfa/${user.ids.totp}`, { target: 123 });
    expect(wrongTarget.statusCode).toBe(404);
    expect((await user.list()).map((m) => m.method)).toEqual(['totp', 'sms', 'email']);
    expect((await user.call('DELETE', `/api/mfa/${user.ids.totp}`, { target: 'x' })).json().code).toBe(
      'validation_failed',
    );
    // The authenticator goes; the named method becomes primary.
    expect((await user.call('DELETE', `/api/mfa/${user.ids.totp}`, { target: user.ids.email })).statusCode).toBe(204);
    expect((await user.list()).map((m) => [m.method, m.primary])).toEqual([
      ['email', true],
      ['sms', false],
    ]);
    // Without a target the backup takes over.
    expect((await user.call('DELETE', `/api/mfa/${user.ids.email}`)).statusCode).toBe(204);
    expect((await user.list()).map((m) => [m.method, m.primary])).toEqual([['sms', true]]);
    const last = await user.call('DELETE', `/api/mfa/${user.ids.sms}`);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toEqual({
      code: 'last_method',
      message: 'You cannot delete your last email or phone verification method.',
    });
    expect((await user.call('DELETE', '/api/mfa/-1')).statusCode).toBe(404);
    expect((await user.call('DELETE', '/api/mfa/abc')).statusCode).toBe(400);
  });

  it("keeps a forced account's last second factor, whatever its kind", async () => {
    const forced = await signedIn(['totp'], 'forced-device-001', {
      forced: true,
      totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXS',
    });
    expect((await forced.call('DELETE', `/api/mfa/${forced.ids.totp}`)).json().code).toBe('last_method');
    const free = await signedIn(['totp'], 'forced-device-002', { totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXS' });
    expect((await free.call('DELETE', `/api/mfa/${free.ids.totp}`)).statusCode).toBe(204);
  });

  it('offers the merge for a target of another account only once its code came back, and remembers what for', async () => {
    const user = await signedIn(['email'], 'merge-device-001');
    const emma = DEMO_USERS[0]!;
    const answer = await user.call('GET', `/api/mfa/-2/activate?target=${encodeURIComponent('0470 12 34 56')}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({
      payload: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      fuzzion: false,
      data: { method: 'sms' },
    });
    expect(
      await server.ctx.db
        .selectFrom('tickets')
        .select('id')
        .where('user_id', '=', user.userId)
        .where('kind', '=', 'fuzzion')
        .execute(),
    ).toEqual([]);
    // The code went to the number, as to any other.
    await server.ctx.outbox.drain();
    const sent = sms.messages.filter((m) => m.to === emma.phone).at(-1);
    expect(sent).toBeDefined();
    const confirmed = await user.call('POST', '/api/mfa/activate', {
      payload: answer.json().payload,
      code: codeIn(sent!.text),
    });
    expect(confirmed.statusCode).toBe(409);
    expect(confirmed.json()).toMatchObject({
      code: 'phone_in_use',
      message: 'This phone number is already in use. Please use a different one.',
      fuzzion: { kind: 'phone', target: emma.phone },
    });
    const ticket = await server.ctx.db
      .selectFrom('tickets')
      .select(['kind', 'detail'])
      .where('user_id', '=', user.userId)
      .where('kind', '=', 'fuzzion')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(ticket.detail!)).toEqual({ kind: 'phone', target: emma.phone });
  });

  it("counts target lookups, so a signed-in user cannot probe for other accounts' addresses", async () => {
    const user = await signedIn(['email'], 'probe-device-001');
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push(
        (
          await user.call(
            'GET',
            `/api/mfa/-1/activate?dry-run=true&target=${encodeURIComponent(`probe${i}@example.com`)}`,
          )
        ).statusCode,
      );
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  it('leaves a trail of security events', async () => {
    const user = await signedIn(['email', 'sms'], 'events-device-01');
    await server.ctx.db.updateTable('sessions').set({ mfa_at: null }).where('user_id', '=', user.userId).execute();
    const started = (await user.call('GET', `/api/mfa/sudo?mfaId=${user.ids.email}`)).json();
    expect(
      (await user.call('POST', '/api/mfa/sudo', { payload: started.payload, code: mailTo(user.email) })).statusCode,
    ).toBe(200);
    expect((await user.call('POST', `/api/mfa/switch-primary/${user.ids.sms}`)).statusCode).toBe(204);
    expect((await user.call('DELETE', `/api/mfa/${user.ids.email}`)).statusCode).toBe(204);
    const types = (
      await server.ctx.db
        .selectFrom('security_events')
        .select('type')
        .where('user_id', '=', user.userId)
        .orderBy('created_at')
        .execute()
    ).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['mfa_step_up', 'mfa_primary_changed', 'mfa_method_removed']));
  });
});

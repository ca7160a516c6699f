// Passkeys as second factors, from the owner's side and the attacker's, on both databases: a real
// credential (a software authenticator signs with P-256 keys) is added, used for a sign-in and a
// step-up, renamed and removed; replays, wrong origins and relying parties, another account's
// passkey, a counter that goes back and thirty racing assertions are all refused but one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEW_METHOD_IDS } from '../../contract/constants.ts';
import type { PasskeyCredential } from '../../contract/schemas.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { addPasskey as addKey, client, signedInUser } from '../testing/mfaKit.ts';
import { startSmtp } from '../testing/peers.ts';
import { assert, register } from '../testing/softAuthenticator.ts';

const kinds = await databaseKinds();

describe.each(kinds)('passkeys on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let api: ReturnType<typeof client>;
  let origin: string;
  let rpId: string;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { SMTP_URL: smtp.url });
    api = client(server);
    origin = server.ctx.config.publicOrigins.be;
    rpId = new URL(origin).hostname;
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  /** An account with an email code, signed in on a trusted device, freshly stepped up. */
  const account = (device: string) => signedInUser(server, { methods: ['email'] }, device);
  type Account = Awaited<ReturnType<typeof account>>;

  async function startAdding(user: Account) {
    const res = await api.call('GET', `/api/mfa/${NEW_METHOD_IDS.passkey}/activate`, user.token, user.device);
    expect(res.statusCode).toBe(200);
    return res.json() as { payload: string; data: { method: string; expires_in: number; passkey: any } };
  }

  const finishAdding = (user: Account, payload: string, credential: PasskeyCredential) =>
    api.call('POST', '/api/mfa/activate', user.token, user.device, { payload, credential });

  const addPasskey = (user: Account, options: { synced?: boolean } = {}) => addKey(server, user, options);

  /** A sign-in's challenge on the passkey: its payload and the browser's options. */
  async function signInChallenge(user: Account, id: number, device = `${user.device}-new`) {
    const payload = await api.loginPayload(user.email, device);
    const res = await api.challenge(payload, id, device);
    expect(res.statusCode).toBe(200);
    return { device, payload: res.json().payload as string, options: res.json().passkey };
  }

  const answer = (payload: string, credential: PasskeyCredential, device: string, token?: string) =>
    token
      ? api.call('POST', '/api/mfa/sudo', token, device, { payload, credential })
      : api.verify(payload, '', device, { code: undefined, credential });

  it('adds a passkey: the browser is asked to create one for the configured relying party, and the owner hears of it', async () => {
    const user = await account('passkey-add-0001');
    const started = await startAdding(user);
    expect(started.data.method).toBe('passkey');
    expect(started.data.expires_in).toBe(300);
    expect(started.data.passkey.rp).toEqual({ name: 'Tessera', id: rpId });
    expect(started.data.passkey.user.name).toBe(user.email);
    const mailsBefore = smtp.mails.filter((m) => m.to === user.email).length;
    const made = register(started.data.passkey, {
      origin,
      aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
      synced: true,
    });
    const res = await finishAdding(user, started.payload, made.credential);
    expect(res.statusCode).toBe(200);
    expect(res.json().method).toBe('passkey');

    const list = await api.call('GET', '/api/mfa', user.token, user.device);
    const entry = list.json().data.find((m: { method: string }) => m.method === 'passkey');
    expect(entry).toMatchObject({ id: res.json().id, provider: 'iCloud Keychain', synced: true, primary: false });
    expect(entry.created_at).toMatch(/^\d{4}-/);
    expect(entry.last_used_at).toBeUndefined();
    await server.ctx.outbox.drain();
    const mails = smtp.mails.filter((m) => m.to === user.email);
    expect(mails.length).toBe(mailsBefore + 1);
    expect(mails.at(-1)!.raw).toContain('Subject: A passkey was added to your Tessera account');
    // The next passkey is not made on the same authenticator: the account's are excluded.
    const again = await startAdding(user);
    expect(again.data.passkey.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([made.passkey.id]);
  });

  it('signs in with a passkey as the second factor, and says how in the session (hwk for a device-bound one)', async () => {
    const user = await account('passkey-sign-0001');
    const { id, passkey } = await addPasskey(user);
    const { device, payload, options } = await signInChallenge(user, id);
    expect(options.rpId).toBe(rpId);
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([passkey.id]);
    const res = await answer(payload, assert(passkey, options, { origin }), device);
    expect(res.statusCode).toBe(200);
    expect(res.json().access_token).toBeTruthy();
    const session = await server.ctx.db
      .selectFrom('sessions')
      .select(['mfa_at', 'mfa_amr'])
      .where('user_id', '=', user.userId)
      .where('device_key', '=', device)
      .executeTakeFirstOrThrow();
    expect(session.mfa_at).not.toBeNull();
    expect(session.mfa_amr).toBe('hwk');
    const used = await server.ctx.db
      .selectFrom('passkeys')
      .select(['counter', 'last_used_at'])
      .where('method_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(used.counter)).toBe(1);
    expect(used.last_used_at).not.toBeNull();
    const events = await server.ctx.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', user.userId)
      .execute();
    expect(events.map((e) => e.type)).toContain('passkey_used');
  });

  it('adds and signs in with an ML-DSA-44 passkey, the first algorithm offered where the runtime has it, whose signature is some 2.4 kB', async () => {
    const user = await account('passkey-mldsa-001');
    const started = await startAdding(user);
    expect(started.data.passkey.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toContain(-48);
    const made = register(started.data.passkey, { origin, algorithm: 'ML-DSA-44' });
    const added = await finishAdding(user, started.payload, made.credential);
    expect(added.statusCode).toBe(200);
    const { device, payload, options } = await signInChallenge(user, added.json().id);
    const signed = assert(made.passkey, options, { origin });
    expect(signed.response.signature!.length).toBeGreaterThan(3000);
    const res = await answer(payload, signed, device);
    expect(res.statusCode).toBe(200);
    expect(res.json().access_token).toBeTruthy();
  });

  it('steps up with a synced passkey (its counter stays 0, accepted each time; amr swk), only in the session that asked', async () => {
    const user = await account('passkey-step-0001');
    const { id, passkey } = await addPasskey(user, { synced: true });
    for (let round = 0; round < 2; round++) {
      const started = await api.call('GET', `/api/mfa/sudo?mfaId=${id}`, user.token, user.device);
      expect(started.statusCode).toBe(200);
      const { payload, passkey: options } = started.json();
      const res = await answer(payload, assert(passkey, options, { origin }), user.device, user.token);
      expect(res.statusCode).toBe(200);
    }
    const session = await server.ctx.db
      .selectFrom('sessions')
      .select('mfa_amr')
      .where('user_id', '=', user.userId)
      .where('device_key', '=', user.device)
      .executeTakeFirstOrThrow();
    expect(session.mfa_amr).toBe('swk');

    // Another session of the same account cannot answer this session's challenge.
    const other = await api.password(user.email, user.device);
    const started = await api.call('GET', `/api/mfa/sudo?mfaId=${id}`, user.token, user.device);
    const { payload, passkey: options } = started.json();
    const stolen = await answer(payload, assert(passkey, options, { origin }), user.device, other.json().access_token);
    expect(stolen.statusCode).toBe(410);
    expect(stolen.json().code).toBe('challenge_closed');
  });

  it('refuses a replayed assertion: on its own spent challenge, and on a new one', async () => {
    const user = await account('passkey-replay-01');
    const { id, passkey } = await addPasskey(user);
    const first = await signInChallenge(user, id);
    const signed = assert(passkey, first.options, { origin });
    expect((await answer(first.payload, signed, first.device)).statusCode).toBe(200);
    const replay = await answer(first.payload, signed, first.device);
    expect(replay.statusCode).toBe(410);
    const second = await signInChallenge(user, id);
    const onNew = await answer(second.payload, signed, second.device);
    expect(onNew.statusCode).toBe(422);
    expect(onNew.json().code).toBe('passkey_refused');
  });

  it("lives five minutes: a right assertion once they are over is refused as an expired challenge's", async () => {
    const user = await account('passkey-expiry-01');
    const { id, passkey } = await addPasskey(user);
    const started = await signInChallenge(user, id);
    const row = await server.ctx.db
      .selectFrom('mfa_challenges')
      .select(['id', 'created_at', 'expires_at'])
      .where('user_id', '=', user.userId)
      .where('completed_at', 'is', null)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(5 * 60_000);
    // The five minutes pass.
    await server.ctx.db
      .updateTable('mfa_challenges')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', row.id)
      .execute();
    const late = await answer(started.payload, assert(passkey, started.options, { origin }), started.device);
    expect(late.statusCode).toBe(410);
    expect(late.json().code).toBe('code_expired');
  });

  it('refuses an assertion made for another origin or another relying party', async () => {
    const user = await account('passkey-origin-01');
    const { id, passkey } = await addPasskey(user);
    for (const wrong of [{ origin: 'https://account.evil.example' }, { origin, rpId: 'evil.example' }]) {
      const { device, payload, options } = await signInChallenge(user, id);
      const res = await answer(payload, assert(passkey, options, wrong), device);
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('passkey_refused');
    }
    // A registration made for another origin is refused too.
    const started = await startAdding(user);
    const made = register(started.data.passkey, { origin: 'https://account.evil.example' });
    const res = await finishAdding(user, started.payload, made.credential);
    expect(res.json().code).toBe('passkey_refused');
  });

  it("refuses another account's passkey, and refuses to register a credential another account holds", async () => {
    const owner = await account('passkey-owner-001');
    const stranger = await account('passkey-strange-1');
    const ownerKey = await addPasskey(owner);
    const strangerKey = await addPasskey(stranger);
    // The stranger's challenge answered with the owner's passkey (a valid signature, the wrong credential).
    const { device, payload, options } = await signInChallenge(stranger, strangerKey.id);
    const res = await answer(payload, assert(ownerKey.passkey, options, { origin }), device);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('passkey_refused');

    // The owner's credential registered again, on the stranger's account: the same answer as any failure.
    const started = await startAdding(stranger);
    const copy = register(started.data.passkey, { origin, reuse: ownerKey.passkey });
    const refused = await finishAdding(stranger, started.payload, copy.credential);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe('passkey_refused');
    const holders = await server.ctx.db
      .selectFrom('passkeys')
      .select('method_id')
      .where('credential_id', '=', ownerKey.passkey.id)
      .execute();
    expect(holders).toEqual([{ method_id: ownerKey.id }]);
  });

  it('refuses a counter that goes back, and writes it in the history', async () => {
    const user = await account('passkey-count-001');
    const { id, passkey } = await addPasskey(user);
    const first = await signInChallenge(user, id);
    expect(
      (await answer(first.payload, assert(passkey, first.options, { origin, counter: 5 }), first.device)).statusCode,
    ).toBe(200);
    for (const counter of [5, 3]) {
      const next = await signInChallenge(user, id);
      const res = await answer(next.payload, assert(passkey, next.options, { origin, counter }), next.device);
      expect(res.json().code).toBe('passkey_refused');
    }
    const regressions = await server.ctx.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', user.userId)
      .where('type', '=', 'passkey_counter_regressed')
      .execute();
    expect(regressions).toHaveLength(2);
    const next = await signInChallenge(user, id);
    expect(
      (await answer(next.payload, assert(passkey, next.options, { origin, counter: 6 }), next.device)).statusCode,
    ).toBe(200);
  });

  it('gives one success when thirty assertions answer one challenge at once', async () => {
    const user = await account('passkey-race-0001');
    const { id, passkey } = await addPasskey(user, { synced: true });
    const { device, payload, options } = await signInChallenge(user, id);
    const signed = assert(passkey, options, { origin });
    const answers = await atOnce(30, () => answer(payload, signed, device));
    expect(answers.every((a) => a.statusCode < 500)).toBe(true);
    expect(statusCounts(answers)[200]).toBe(1);
    const sessions = await server.ctx.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user.userId)
      .where('device_key', '=', device)
      .execute();
    expect(sessions).toHaveLength(1);
  });

  it('renames a passkey of its own only, and removes it with its credential', async () => {
    const user = await account('passkey-name-0001');
    const stranger = await account('passkey-name-0002');
    const { id } = await addPasskey(user);
    const rename = (who: Account, name: unknown) =>
      api.call('PATCH', `/api/mfa/${id}`, who.token, who.device, { name });
    expect((await rename(user, '  My phone  ')).statusCode).toBe(204);
    expect((await rename(stranger, 'Mine now')).statusCode).toBe(404);
    expect((await rename(user, '   ')).statusCode).toBe(400);
    expect((await rename(user, 'x'.repeat(65))).statusCode).toBe(400);
    const list = await api.call('GET', '/api/mfa', user.token, user.device);
    expect(list.json().data.find((m: { id: number }) => m.id === id).name).toBe('My phone');

    expect((await api.call('DELETE', `/api/mfa/${id}`, user.token, user.device)).statusCode).toBe(204);
    const left = await server.ctx.db.selectFrom('passkeys').select('method_id').where('method_id', '=', id).execute();
    expect(left).toEqual([]);
  });

  it('counts as a second factor: it satisfies a forced account, and is kept as its last one', async () => {
    const user = await signedInUser(
      server,
      { methods: ['totp'], totpSecret: 'JBSWY3DPEHPK3PXP', forced: true },
      'passkey-forced-01',
    );
    const { id } = await addPasskey(user);
    const totp = (await api.call('GET', '/api/mfa', user.token, user.device))
      .json()
      .data.find((m: { method: string }) => m.method === 'totp');
    expect((await api.call('DELETE', `/api/mfa/${totp.id}`, user.token, user.device)).statusCode).toBe(204);
    const last = await api.call('DELETE', `/api/mfa/${id}`, user.token, user.device);
    expect(last.statusCode).toBe(409);
    expect(last.json().code).toBe('last_method');
    // The passkey is now the primary, and the account still asks for it from a new device.
    const list = (await api.call('GET', '/api/mfa', user.token, user.device)).json().data;
    expect(list).toMatchObject([{ id, method: 'passkey', primary: true }]);
    const fromElsewhere = await api.password(user.email, 'passkey-forced-02');
    expect(fromElsewhere.statusCode).toBe(401);
    expect(fromElsewhere.json().mfa.methods).toMatchObject([{ id, method: 'passkey' }]);
  });

  it('takes a code or a credential, not neither, and never a malformed credential as a 500', async () => {
    const user = await account('passkey-input-001');
    const { id, passkey } = await addPasskey(user);
    const { device, payload, options } = await signInChallenge(user, id);
    const neither = await api.verify(payload, '', device, { code: undefined });
    expect(neither.statusCode).toBe(400);
    const signed = assert(passkey, options, { origin });
    for (const broken of [
      { ...signed, response: { ...signed.response, signature: 'AAAA' } },
      { ...signed, response: { ...signed.response, clientDataJSON: 'bm90IGpzb24' } },
      { ...signed, response: { clientDataJSON: signed.response.clientDataJSON } },
    ]) {
      const res = await answer(payload, broken as PasskeyCredential, device);
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('passkey_refused');
    }
    const malformed = await answer(payload, { ...signed, type: 'password' } as unknown as PasskeyCredential, device);
    expect(malformed.statusCode).toBe(400);
  });
});

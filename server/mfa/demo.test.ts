// The demo accounts of the second factor, as docs/demo-data.md describes them; the other demo accounts have none.
import { TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_RECOVERY_KEYS, DEMO_TOTP_SECRET, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { client } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();
const byKey = (key: string) => DEMO_MFA_USERS.find((u) => u.key === key)!;

describe.each(kinds)('demo second factors on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  const methodsOf = async (email: string) => {
    const rows = await server.ctx.db
      .selectFrom('mfa_methods')
      .innerJoin('user_emails', 'user_emails.user_id', 'mfa_methods.user_id')
      .select(['mfa_methods.method', 'mfa_methods.is_primary'])
      .where('user_emails.value', '=', email)
      .orderBy('mfa_methods.is_primary', 'desc')
      .execute();
    return rows.map((r) => r.method);
  };

  it('gives emma, luc, claire, wout and rita no second factor', async () => {
    for (const user of DEMO_USERS) expect(await methodsOf(user.email)).toEqual([]);
  });

  it('seeds mila (email, sms), tom (authenticator, email, recovery keys), fiona (forced) and carl (customer)', async () => {
    expect((await methodsOf(byKey('mfa').email)).toSorted()).toEqual(['email', 'sms']);
    expect((await methodsOf(byKey('totp').email))[0]).toBe('totp');
    expect((await methodsOf(byKey('totp').email)).toSorted()).toEqual(['email', 'totp', 'totpRecovery']);
    expect(await methodsOf(byKey('forced').email)).toEqual([]);
    expect(await methodsOf(byKey('offered').email)).toEqual([]);
    const flags = await server.ctx.db
      .selectFrom('users')
      .innerJoin('user_emails', 'user_emails.user_id', 'users.id')
      .select(['user_emails.value', 'users.mfa_forced', 'users.mfa_customer', 'users.customer_user_id'])
      .where('user_emails.value', 'in', [byKey('forced').email, byKey('offered').email])
      .execute();
    expect(flags.find((f) => f.value === byKey('forced').email)).toMatchObject({ mfa_forced: 1, mfa_customer: 0 });
    expect(flags.find((f) => f.value === byKey('offered').email)).toMatchObject({
      mfa_forced: 0,
      mfa_customer: 1,
      customer_user_id: 'C-2003',
    });
  });

  it('lets tom in with the published secret and, once each, with the published recovery keys', async () => {
    const api = client(server);
    const tom = byKey('totp');
    const login = (await api.password(tom.email, 'demo-device-0001')).json();
    const totp = login.mfa.methods.find((m: { method: string }) => m.method === 'totp');
    const challenge = (await api.challenge(login.mfa.payload, totp.id, 'demo-device-0001')).json();
    const code = new TOTP({ secret: DEMO_TOTP_SECRET, digits: 6, period: 30 }).generate();
    expect((await api.verify(challenge.payload, code, 'demo-device-0001')).statusCode).toBe(200);

    const again = (await api.password(tom.email, 'demo-device-0002')).json();
    const recovery = again.mfa.methods.find((m: { method: string }) => m.method === 'totpRecovery');
    const byKeyChallenge = (await api.challenge(again.mfa.payload, recovery.id, 'demo-device-0002')).json();
    const used = await api.verify(byKeyChallenge.payload, DEMO_RECOVERY_KEYS[0]!.replace('-', ''), 'demo-device-0002');
    expect(used.json()).toMatchObject({ recovery_keys_left: DEMO_RECOVERY_KEYS.length - 1 });
    expect(DEMO_PASSWORD).toBe('Tessera-demo-2026!');
  });
});

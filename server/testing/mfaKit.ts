// Helpers for the MFA tests: accounts of their own (the seeded ones stay as they are for the
// other tests), and the calls of a sign-in with a second factor.
import { expect } from 'vitest';
import { nowIso } from '../db/index.ts';
import { addMethod } from '../identity/second-factors.ts';
import { DEMO_PASSWORD, createUser } from '../seed/demo.ts';
import type { TestServer } from './harness.ts';
import { encryptSecret } from '../config/secrets.ts';
import { NEW_METHOD_IDS } from '../../contract/constants.ts';
import { register, type SoftPasskey } from './softAuthenticator.ts';

export type Method = 'email' | 'sms' | 'call' | 'whatsapp' | 'totp' | 'card';

let counter = 0;

type NewTestUser = Parameters<typeof createUser>[1];

/** An account with these fields; those a test leaves out are an English-speaking one's without platform ids. */
export const createTestUser = (
  server: TestServer,
  fields: Partial<NewTestUser> & Pick<NewTestUser, 'email' | 'phone'>,
  password = DEMO_PASSWORD,
): Promise<string> =>
  createUser(
    server.ctx,
    {
      firstname: 'Test',
      lastname: 'User',
      language: 'en',
      user_id: null,
      customer_user_id: null,
      fridom_user_id: null,
      password_status: 0,
      ...fields,
    },
    password,
  );

/** A fresh account with these methods (the first primary); a TOTP method takes `totpSecret`. */
export async function makeUser(
  server: TestServer,
  options: {
    methods: Method[];
    language?: string;
    totpSecret?: string;
    forced?: boolean;
    customer?: boolean;
  },
): Promise<{ userId: string; email: string; phone: string; ids: Partial<Record<Method, number>> }> {
  counter += 1;
  const n = `${process.pid % 1000}${counter}`.padStart(6, '0').slice(-6);
  const email = `mfa.${n}.${counter}@example.be`;
  const phone = `+32471${n}`;
  const userId = await createTestUser(server, {
    lastname: `User ${counter}`,
    language: options.language ?? 'en',
    email,
    phone,
    customer_user_id: options.customer ? `C-T${n}` : null,
    mfa_forced: options.forced ?? false,
    mfa_customer: options.customer ?? false,
  });
  const ids: Partial<Record<Method, number>> = {};
  for (const [i, method] of options.methods.entries()) {
    const target = method === 'email' ? email : ['sms', 'call', 'whatsapp'].includes(method) ? phone : null;
    const secret = method === 'totp' ? encryptSecret(server.ctx.config.secretKey, options.totpSecret!) : null;
    ids[method] = await addMethod(server.ctx.db, { userId, method, target, secret, primary: i === 0 });
    // Methods are listed in the order they were added: keep their times apart.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { userId, email, phone, ids };
}

export function client(server: TestServer) {
  const headers = (device: string, token?: string) => ({
    'x-device-id': device,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  const api = {
    password: (username: string, device: string, extra: Record<string, unknown> = {}, host?: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { ...headers(device), ...(host ? { host } : {}) },
        payload: { username, password: DEMO_PASSWORD, ...extra },
      }),
    /** The sign-in's payload and methods; the account must need a second factor. */
    async loginPayload(username: string, device: string, extra: Record<string, unknown> = {}) {
      const res = await api.password(username, device, extra);
      expect(res.statusCode).toBe(401);
      return res.json().mfa.payload as string;
    },
    challenge: (payload: string, mfaId: number, device: string, channel?: string) =>
      server.app.inject({
        method: 'GET',
        url: `/api/mfa/sudo?mfaId=${mfaId}&payload=${encodeURIComponent(payload)}${channel ? `&channel=${channel}` : ''}`,
        headers: headers(device),
      }),
    verify: (payload: string, code: string, device: string, extra: Record<string, unknown> = {}) =>
      server.app.inject({
        method: 'POST',
        url: '/api/mfa/sudo',
        headers: headers(device),
        payload: { payload, code, ...extra },
      }),
    /** An API call with a session token. */
    call: (
      method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
      url: string,
      token: string,
      device: string,
      payload?: unknown,
      host?: string,
    ) =>
      server.app.inject({
        method,
        url,
        headers: { ...headers(device, token), ...(host ? { host } : {}) },
        ...(payload !== undefined ? { payload: payload as object } : {}),
      }),
  };
  return api;
}

/** Lets a new code be sent at once (the resend wait is tested on its own). */
export async function skipResendWaits(server: TestServer): Promise<void> {
  await server.ctx.db.updateTable('mfa_challenges').set({ resend_at: '2000-01-01T00:00:00.000Z' }).execute();
}

/** Marks a user's sessions as freshly checked, where step-up itself is not what is tested. */
export async function freshMfa(server: TestServer, userId: string): Promise<void> {
  await server.ctx.db.updateTable('sessions').set({ mfa_at: nowIso() }).where('user_id', '=', userId).execute();
}

/** Marks `device` as one the account trusts: no second factor is asked from it. */
export async function trustDevice(server: TestServer, userId: string, device: string): Promise<void> {
  const until = '2999-01-01T00:00:00.000Z';
  await server.ctx.db
    .insertInto('devices')
    .values({
      id: crypto.randomUUID(),
      user_id: userId,
      device_key: device,
      user_agent: null,
      first_seen_at: nowIso(),
      last_seen_at: nowIso(),
      trusted_until: until,
    })
    .onConflict((c) => c.columns(['user_id', 'device_key']).doUpdateSet({ trusted_until: until }))
    .execute();
}

/** A session for an account without MFA on a trusted device, or any account by its password when it has none. */
export async function sessionFor(server: TestServer, userId: string, device: string): Promise<string> {
  await trustDevice(server, userId, device);
  const email = (
    await server.ctx.db
      .selectFrom('user_emails')
      .select('value')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow()
  ).value;
  const res = await client(server).password(email, device);
  expect(res.statusCode).toBe(200);
  return res.json().access_token as string;
}

/** A fresh account signed in on a trusted device (no code asked), its second factor freshly checked;
 * `device` is the device's id or makes one from the account's id. */
export async function signedInUser(
  server: TestServer,
  options: Parameters<typeof makeUser>[1],
  device: string | ((userId: string) => string),
): Promise<Awaited<ReturnType<typeof makeUser>> & { device: string; token: string }> {
  const user = await makeUser(server, options);
  const id = typeof device === 'string' ? device : device(user.userId);
  const token = await sessionFor(server, user.userId, id);
  await freshMfa(server, user.userId);
  return { ...user, device: id, token };
}

/** Adds a passkey to a signed-in account through the API, as the browser does (a software
 * authenticator makes it); its method id and the passkey, to sign with. */
export async function addPasskey(
  server: TestServer,
  who: { token: string; device: string },
  options: { synced?: boolean; aaguid?: string } = {},
): Promise<{ id: number; passkey: SoftPasskey }> {
  const api = client(server);
  const started = await api.call('GET', `/api/mfa/${NEW_METHOD_IDS.passkey}/activate`, who.token, who.device);
  expect(started.statusCode).toBe(200);
  const { payload, data } = started.json();
  const made = register(data.passkey, { origin: server.ctx.config.publicOrigins.be, ...options });
  const res = await api.call('POST', '/api/mfa/activate', who.token, who.device, {
    payload,
    credential: made.credential,
  });
  expect(res.statusCode).toBe(200);
  return { id: res.json().id as number, passkey: made.passkey };
}

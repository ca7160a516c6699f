// The partner pages' API: GET /api/partners/{client_id} and POST …/access-requests, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessRequestAnswer, PartnerAccessAnswer, PartnerAnswer } from '../../contract/schemas.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import {
  DEVICE,
  databaseKinds,
  passwordSignIn,
  userIdByEmail,
  startTestServer,
  type TestServer,
} from '../testing/harness.ts';
import * as v from 'valibot';
import { registerClient } from './clients.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const claire = DEMO_USERS.find((u) => u.key === 'customer')!;
const ADMIN = 'access@deals.partner.example';

describe.each(kinds)('partner pages API on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
    await registerClient(server.ctx.db, {
      client_id: 'no-admin',
      name: 'Without administrator',
      redirect_uris: ['https://no-admin.example/cb'],
      scopes: ['balance'],
    });
    await registerClient(server.ctx.db, {
      client_id: 'race',
      name: 'Race partner',
      redirect_uris: ['https://race.example/cb'],
      admin_email: 'admin@race.example',
    });
    await registerClient(server.ctx.db, {
      client_id: 'standing',
      name: 'Standing partner',
      redirect_uris: ['https://standing.example/cb'],
      admin_email: 'admin@standing.example',
    });
  });
  afterAll(async () => server?.stop());

  async function signIn(email: string): Promise<string> {
    const res = await passwordSignIn(server, email, DEMO_PASSWORD);
    expect(res.statusCode).toBe(200);
    const cookie = res.headers['set-cookie'] as string[] | string;
    return [cookie]
      .flat()
      .find((c) => c.startsWith('tessera_token='))!
      .split(';')[0]!;
  }
  const get = (clientId: string, headers: Record<string, string> = {}) =>
    server.app.inject({ method: 'GET', url: `/api/partners/${clientId}`, headers: { ...DEVICE, ...headers } });
  const ask = (clientId: string, cookie?: string) =>
    server.app.inject({
      method: 'POST',
      url: `/api/partners/${clientId}/access-requests`,
      headers: { ...DEVICE, ...(cookie ? { cookie } : {}) },
    });
  const standing = async (clientId: string, cookie: string) => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/partners/${clientId}/access-requests`,
      headers: { ...DEVICE, cookie },
    });
    expect(res.statusCode).toBe(200);
    return v.parse(PartnerAccessAnswer, res.json());
  };
  const mailsTo = (to: string) => server.ctx.db.selectFrom('outbox').selectAll().where('recipient', '=', to).execute();
  const requests = (clientId: string) =>
    server.ctx.db.selectFrom('partner_access_requests').selectAll().where('client_id', '=', clientId).execute();

  it('shows a partner to anyone: its name in the language asked for, its logo and the scopes it may ask for', async () => {
    const res = await get('deals-partner', { 'accept-language': 'en' });
    expect(res.statusCode).toBe(200);
    const body = v.parse(PartnerAnswer, res.json());
    expect(body.client.client_id).toBe('deals-partner');
    expect(body.client.name).toBeTruthy();
    expect(body.scopes).toEqual(expect.arrayContaining(['openid', 'balance', 'transaction', 'user']));
    expect(body.scopes).not.toContain('fridom');
  });

  it('answers 404 for an unknown client and for a first-party one, 400 for a malformed id', async () => {
    expect((await get('nobody')).statusCode).toBe(404);
    for (const id of ['2', '17', '51', '66']) {
      const res = await get(id);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    for (const bad of ['%00', 'a%20b', 'x'.repeat(101), '%E2%9C%93', "'%3Bdrop"]) {
      const res = await get(bad);
      expect(res.statusCode, bad).toBe(400);
    }
    expect((await ask('%00', await signIn(emma.email))).statusCode).toBe(400);
  });

  it('takes access requests only from a signed-in person', async () => {
    const res = await ask('deals-partner');
    expect(res.statusCode).toBe(401);
    expect(await requests('deals-partner')).toEqual([]);
  });

  it('refuses requests to unknown and first-party clients', async () => {
    const cookie = await signIn(emma.email);
    expect((await ask('nobody', cookie)).statusCode).toBe(404);
    expect((await ask('17', cookie)).statusCode).toBe(404);
  });

  it('says the request could not be sent when the client has no administrator, and stores nothing', async () => {
    const res = await ask('no-admin', await signIn(emma.email));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'access_request_unavailable',
      message: expect.stringContaining('Access request could not be sent'),
    });
    expect(await requests('no-admin')).toEqual([]);
  });

  it('tells a person before asking where they stand: no administrator, may ask, asked already, or access granted', async () => {
    const cookie = await signIn(claire.email);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/partners/no-admin/access-requests', headers: DEVICE }))
        .statusCode,
    ).toBe(401);
    expect(await standing('no-admin', cookie)).toEqual({
      client_id: 'no-admin',
      access: 'unavailable',
      requested_at: null,
    });
    expect(await standing('standing', cookie)).toEqual({ client_id: 'standing', access: 'none', requested_at: null });
    const asked = v.parse(AccessRequestAnswer, (await ask('standing', cookie)).json());
    expect(await standing('standing', cookie)).toEqual({
      client_id: 'standing',
      access: 'requested',
      requested_at: asked.requested_at,
    });
    // A person who gave the application access has it: nothing to ask.
    const userId = await userIdByEmail(server, claire.email);
    await server.ctx.db
      .insertInto('oidc_models')
      .values({
        model: 'Grant',
        id: `grant-${kind}`,
        payload: '{}',
        grant_id: null,
        uid: null,
        user_code: null,
        expires_at: null,
        consumed_at: null,
        account_id: userId,
        client_id: 'no-admin',
      })
      .execute();
    expect((await standing('no-admin', cookie)).access).toBe('granted');
  });

  it("stores one request and mails the administrator the person's name, email and the application; asking again changes nothing", async () => {
    const cookie = await signIn(emma.email);
    const before = (await mailsTo(ADMIN)).length;
    const first = await ask('deals-partner', cookie);
    expect(first.statusCode).toBe(200);
    const answer = v.parse(AccessRequestAnswer, first.json());
    expect(answer.client_id).toBe('deals-partner');
    const mails = await mailsTo(ADMIN);
    expect(mails.length).toBe(before + 1);
    const mail = mails.at(-1)!;
    expect(mail.channel).toBe('email');
    expect(mail.subject).toContain('Deals partner');
    expect(mail.body).toContain('Emma Peeters');
    expect(mail.body).toContain(emma.email);
    expect(mail.body).toContain('Deals partner');
    const again = await ask('deals-partner', cookie);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect((await mailsTo(ADMIN)).length).toBe(before + 1);
    expect((await requests('deals-partner')).filter((r) => r.client_id === 'deals-partner').length).toBe(1);
    // Another person's request is theirs.
    expect((await ask('deals-partner', await signIn(claire.email))).statusCode).toBe(200);
    expect((await requests('deals-partner')).length).toBe(2);
  });

  // Defined on PostgreSQL only: its default isolation is where read-check-write races.
  if (kind === 'postgres')
    it('makes one row and one mail from thirty parallel requests', async () => {
      const cookie = await signIn(emma.email);
      const answers = await Promise.all(Array.from({ length: 30 }, () => ask('race', cookie)));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(30).fill(200));
      expect(new Set(answers.map((a) => a.json().requested_at)).size).toBe(1);
      expect((await requests('race')).length).toBe(1);
      expect((await mailsTo('admin@race.example')).length).toBe(1);
    });
});

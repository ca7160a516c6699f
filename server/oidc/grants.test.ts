// The access list and its revocation (GET /api/tokens, DELETE /api/token/{client_id}) against grants
// made by an independent relying party (openid-client) through the real code + PKCE flow.
import { readFileSync } from 'node:fs';
import * as oidc from 'openid-client';
import { browse as browseAs, signInCookie } from '../testing/oidcKit.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessGrantList } from '../../contract/schemas.ts';
import { nowIso } from '../db/index.ts';
import { DEMO_CLIENTS, DEMO_USERS } from '../seed/demo.ts';
import { DEVICE, databaseKinds, startListeningTestServer, userIdByEmail, type TestServer } from '../testing/harness.ts';
import * as v from 'valibot';
import { OidcAdapter } from './adapter.ts';
import { registerClient } from './clients.ts';
import { checkLogo } from './logos.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const rita = DEMO_USERS.find((u) => u.key === 'reset')!;
const redirectOf = (clientId: string) =>
  DEMO_CLIENTS.find((c) => c.client_id === clientId)!.redirect_uris.find((u) => u.startsWith('http://'))!;

describe.each(kinds)('access grants on %s', (kind) => {
  let server: TestServer;
  let base: string;
  const configs = new Map<string, oidc.Configuration>();

  beforeAll(async () => {
    const listening = await startListeningTestServer(kind);
    server = listening;
    base = listening.base;
    for (const clientId of ['2', '17']) {
      configs.set(
        clientId,
        await oidc.discovery(new URL(`${base}/oidc`), clientId, undefined, oidc.None(), {
          execute: [oidc.allowInsecureRequests],
        }),
      );
    }
  });
  afterAll(async () => server?.stop());

  const signIn = (email = emma.email) => signInCookie(base, email);
  const browse = (url: string, cookies: string[]) => browseAs(base, url, cookies);

  /** A grant made through the code flow with PKCE (a fresh provider session each time, so a new
   * grant each time); gives the relying party's tokens. */
  async function grantThrough(clientId: string, scope: string, cookie: string) {
    const config = configs.get(clientId)!;
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectOf(clientId),
      response_type: 'code',
      scope,
      state,
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).href;
    const res = await browse(url, [cookie]);
    expect(res.status).toBe(303);
    const callback = new URL(res.headers.get('location')!);
    return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  }

  async function list(cookie: string, language = 'en') {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/tokens',
      headers: { ...DEVICE, cookie, 'accept-language': language },
    });
    expect(res.statusCode).toBe(200);
    return v.parse(AccessGrantList, res.json()).data;
  }

  const revoke = (cookie: string, clientId: string) =>
    server.app.inject({
      method: 'DELETE',
      url: `/api/token/${encodeURIComponent(clientId)}`,
      headers: { ...DEVICE, cookie },
    });

  const grantRows = (clientId: string) =>
    server.ctx.db
      .selectFrom('oidc_models')
      .select('id')
      .where('model', '=', 'Grant')
      .where('client_id', '=', clientId)
      .execute();

  it('is for a signed-in user only', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/api/tokens', headers: DEVICE })).statusCode).toBe(401);
    const res = await server.app.inject({ method: 'DELETE', url: '/api/token/2', headers: DEVICE });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
  });

  it('lists nothing before any grant, and answers 404 to a revocation of nothing', async () => {
    const cookie = await signIn(rita.email);
    expect(await list(cookie)).toEqual([]);
    const res = await revoke(cookie, '2');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it("lists one entry per client, named in the request's language, with its scopes, when granted and last used", async () => {
    const cookie = await signIn();
    const before = Math.floor(Date.now() / 1000) * 1000;
    const first = await grantThrough('2', 'openid profile offline_access', cookie);
    // A second grant of the same client (another provider session): merged into one entry.
    await grantThrough('2', 'openid email user', cookie);
    await grantThrough('17', 'openid balance', cookie);

    const english = await list(cookie, 'en');
    expect(english.map((g) => [g.client_id, g.name])).toEqual([
      ['2', 'Client area'],
      ['17', 'Employee area'],
    ]);
    const client = english[0]!;
    expect(client.scopes.sort()).toEqual(['email', 'offline_access', 'profile', 'user']);
    expect(english[1]!.scopes).toEqual(['balance']);
    expect(client.logo_uri).toBeNull();
    expect(Date.parse(client.granted_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(client.last_used_at!)).toBeGreaterThanOrEqual(Date.parse(client.granted_at));

    expect((await list(cookie, 'fr-BE,fr;q=0.9')).map((g) => g.name)).toEqual(['Espace client', 'Espace salarié']);
    expect((await list(cookie, 'nl')).map((g) => g.name)).toEqual(['Klantenzone', 'Werknemerszone']);

    // Using the grant (a refresh) moves "last used"; the grant date stays.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await oidc.refreshTokenGrant(configs.get('2')!, first.refresh_token!);
    const later = (await list(cookie)).find((g) => g.client_id === '2')!;
    expect(Date.parse(later.last_used_at!)).toBeGreaterThan(Date.parse(client.last_used_at!));
    expect(later.granted_at).toBe(client.granted_at);
  });

  it("revokes every grant of a client and what they issued: the relying party's tokens stop working", async () => {
    const cookie = await signIn();
    const tokens = await grantThrough('2', 'openid offline_access', cookie);
    const other = await grantThrough('2', 'openid profile offline_access', cookie);
    expect((await grantRows('2')).length).toBeGreaterThanOrEqual(2);

    // Another account neither sees nor touches emma's grants.
    const ritaCookie = await signIn(rita.email);
    expect(await list(ritaCookie)).toEqual([]);
    expect((await revoke(ritaCookie, '2')).statusCode).toBe(404);
    expect((await list(cookie)).map((g) => g.client_id)).toContain('2');

    const res = await revoke(cookie, '2');
    expect(res.statusCode).toBe(204);
    expect((await list(cookie)).map((g) => g.client_id)).not.toContain('2');
    expect(await grantRows('2')).toEqual([]);
    const config = configs.get('2')!;
    for (const issued of [tokens, other]) {
      await expect(oidc.refreshTokenGrant(config, issued.refresh_token!)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      expect((await oidc.tokenIntrospection(config, issued.access_token)).active).toBe(false);
    }
    // The other client keeps its access.
    expect((await list(cookie)).map((g) => g.client_id)).toEqual(['17']);
    expect((await revoke(cookie, '2')).statusCode).toBe(404);

    const events = await server.ctx.db
      .selectFrom('security_events')
      .select(['type', 'detail'])
      .where('type', '=', 'partner_access_revoked')
      .execute();
    expect(events).toHaveLength(1);
  });

  it("shows a partner's logo; leaves out expired grants and grants of clients no longer registered", async () => {
    const cookie = await signIn(rita.email);
    const ritaId = await userIdByEmail(server, rita.email);
    await registerClient(server.ctx.db, {
      client_id: 'logo-partner',
      name: 'Logo partner',
      names: { fr: 'Partenaire au logo' },
      redirect_uris: ['https://logo.partner.example/cb'],
      logo: checkLogo(readFileSync(new URL('../seed/deals-partner-logo.png', import.meta.url))),
      scopes: ['balance'],
    });
    const grants = new OidcAdapter(server.ctx.db, 'Grant');
    const iat = Math.floor(Date.now() / 1000) - 3600;
    const payload = (clientId: string, scope: string) => ({
      accountId: ritaId,
      clientId,
      iat,
      exp: iat + 86_400,
      kind: 'Grant',
      jti: `${clientId}-grant`,
      openid: { scope },
    });
    await grants.upsert('g-logo', payload('logo-partner', 'openid balance'), 86_400);
    await grants.upsert('g-expired', payload('deals-partner', 'openid user'), 86_400);
    await server.ctx.db
      .updateTable('oidc_models')
      .set({ expires_at: nowIso(Date.now() - 1000) })
      .where('model', '=', 'Grant')
      .where('id', '=', 'g-expired')
      .execute();
    await grants.upsert('g-gone', payload('unregistered', 'openid'), 86_400);
    // A token issued under the partner's grant is its last use.
    await new OidcAdapter(server.ctx.db, 'AccessToken').upsert(
      't-logo',
      { accountId: ritaId, clientId: 'logo-partner', grantId: 'g-logo', iat: iat + 60, kind: 'AccessToken' },
      600,
    );

    expect(await list(cookie, 'fr')).toEqual([
      {
        client_id: 'logo-partner',
        name: 'Partenaire au logo',
        // Served by us, under the configured origin.
        logo_uri: expect.stringMatching(
          new RegExp(`^${server.ctx.config.publicOrigins.be}/api/clients/logo-partner/logo\\?v=[\\w-]{22}$`),
        ),
        scopes: ['balance'],
        granted_at: new Date(iat * 1000).toISOString(),
        last_used_at: new Date((iat + 60) * 1000).toISOString(),
      },
    ]);
    // An expired grant is no access to revoke.
    expect((await revoke(cookie, 'deals-partner')).statusCode).toBe(404);
    expect((await revoke(cookie, 'logo-partner')).statusCode).toBe(204);
    expect(
      await server.ctx.db.selectFrom('oidc_models').select('id').where('grant_id', '=', 'g-logo').execute(),
    ).toEqual([]);
  });

  it('refuses a malformed client id with 400, never 500', async () => {
    const cookie = await signIn();
    for (const clientId of ['a'.repeat(101), 'a b', 'a\u0000b', 'é', '<script>', "x'--"]) {
      const res = await revoke(cookie, clientId);
      expect(res.statusCode, clientId).toBe(400);
      expect(res.json().code).toBeTruthy();
    }
  });

  it("signing out everywhere ends the applications' refresh tokens too", async () => {
    const cookie = await signIn();
    const tokens = await grantThrough('17', 'openid offline_access', cookie);
    // The refresh token works (a rotated one is the one to keep)…
    const refreshed = await oidc.refreshTokenGrant(configs.get('17')!, tokens.refresh_token!);
    const live = refreshed.refresh_token ?? tokens.refresh_token!;
    const res = await server.app.inject({ method: 'DELETE', url: '/api/sessions', headers: { ...DEVICE, cookie } });
    expect(res.statusCode).toBe(204);
    // …until every session ends.
    await expect(oidc.refreshTokenGrant(configs.get('17')!, live)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  // Defined on PostgreSQL only: its default isolation is where read-check-write races.
  if (kind === 'postgres')
    it('of thirty parallel revocations exactly one succeeds, the others find nothing', async () => {
      const cookie = await signIn();
      await grantThrough('2', 'openid offline_access', cookie);
      await grantThrough('2', 'openid', cookie);
      const answers = await Promise.all(Array.from({ length: 30 }, () => revoke(cookie, '2')));
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 204)).toHaveLength(1);
      expect(statuses.filter((s) => s === 404)).toHaveLength(29);
    });
});

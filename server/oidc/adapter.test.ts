import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, Provider } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, openDatabase, type Db } from '../db/index.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { databaseKinds, useTestDatabase } from '../testing/harness.ts';
import {
  OidcAdapter,
  OidcStorageUnavailable,
  oidcAdapterFactory,
  purgeExpiredOidcModels,
  startOidcPurge,
  tokenRequestScope,
} from './adapter.ts';
import { SigningKeys } from './keys.ts';

const kinds = await databaseKinds();
const SECRET_KEY = 'oidc-adapter-test-secret-key-of-32-characters';

describe.each(kinds)('the oidc-provider adapter on %s', (kind) => {
  let db: Db;
  useTestDatabase(kind, (handle) => {
    db = handle.db;
  });

  const adapter = (model: string, now?: () => number) => new OidcAdapter(db, model, now);

  it('stores, finds, updates and destroys a model, by id, uid and user code', async () => {
    const sessions = adapter('Session');
    await sessions.upsert('s-1', { uid: 'uid-1', accountId: 'u-1', kind: 'Session' }, 3600);
    expect(await sessions.find('s-1')).toEqual({ uid: 'uid-1', accountId: 'u-1', kind: 'Session' });
    expect(await sessions.findByUid('uid-1')).toEqual({ uid: 'uid-1', accountId: 'u-1', kind: 'Session' });
    // Another model with the same id is another row.
    expect(await adapter('Interaction').find('s-1')).toBeUndefined();

    await sessions.upsert('s-1', { uid: 'uid-2', accountId: 'u-1', kind: 'Session' }, 3600);
    expect(await sessions.findByUid('uid-1')).toBeUndefined();
    expect(await sessions.findByUid('uid-2')).toMatchObject({ uid: 'uid-2' });

    const devices = adapter('DeviceCode');
    await devices.upsert('d-1', { userCode: 'ABCD-EFGH', grantId: 'g-device', kind: 'DeviceCode' }, 600);
    expect(await devices.findByUserCode('ABCD-EFGH')).toMatchObject({ userCode: 'ABCD-EFGH', grantId: 'g-device' });
    expect(await devices.findByUserCode('ZZZZ-ZZZZ')).toBeUndefined();

    await sessions.destroy('s-1');
    expect(await sessions.find('s-1')).toBeUndefined();
    // A model saved without a lifetime does not expire.
    const clients = adapter('Client');
    await clients.upsert('c-1', { client_id: 'c-1' });
    expect(await clients.find('c-1')).toEqual({ client_id: 'c-1' });
  });

  it('consumes once: find then says consumed, saving again keeps it consumed, a second consume is invalid_grant', async () => {
    const codes = adapter('AuthorizationCode');
    await codes.upsert('code-1', { grantId: 'g-1', kind: 'AuthorizationCode' }, 60);
    expect((await codes.find('code-1'))?.consumed).toBeUndefined();
    const before = Math.floor(Date.now() / 1000);
    await codes.consume('code-1');
    const consumed = (await codes.find('code-1'))?.consumed as number;
    expect(consumed).toBeGreaterThanOrEqual(before);
    expect(consumed).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));

    await codes.upsert('code-1', { grantId: 'g-1', kind: 'AuthorizationCode' }, 60);
    expect((await codes.find('code-1'))?.consumed).toBe(consumed);

    const again = await codes.consume('code-1').catch((error: unknown) => error);
    expect(again).toBeInstanceOf(errors.InvalidGrant);
    expect(again).toMatchObject({
      statusCode: 400,
      error: 'invalid_grant',
      error_detail: 'authorization code already consumed',
    });
    // Nothing to consume (never stored) is refused the same way.
    await expect(codes.consume('code-unknown')).rejects.toBeInstanceOf(errors.InvalidGrant);
    // A pushed request used twice gets what oidc-provider answers for it.
    const pushed = adapter('PushedAuthorizationRequest');
    await pushed.upsert('par-1', { kind: 'PushedAuthorizationRequest' }, 60);
    await pushed.consume('par-1');
    await expect(pushed.consume('par-1')).rejects.toMatchObject({ statusCode: 400, error: 'invalid_request_uri' });
  });

  it('does not return or consume an expired model, and the purge removes only expired ones', async () => {
    let now = Date.now();
    const clock = () => now;
    const tokens = adapter('AccessToken', clock);
    await tokens.upsert('at-short', { grantId: 'g-exp', uid: 'uid-short', kind: 'AccessToken' }, 10);
    await tokens.upsert('at-long', { grantId: 'g-exp', kind: 'AccessToken' }, 3600);
    await adapter('Client', clock).upsert('c-forever', { client_id: 'c-forever' });
    const codes = adapter('AuthorizationCode', clock);
    await codes.upsert('code-short', { kind: 'AuthorizationCode' }, 10);
    expect(await tokens.find('at-short')).toBeDefined();

    now += 11_000;
    expect(await tokens.find('at-short')).toBeUndefined();
    expect(await tokens.findByUid('uid-short')).toBeUndefined();
    expect(await tokens.find('at-long')).toBeDefined();
    await expect(codes.consume('code-short')).rejects.toBeInstanceOf(errors.InvalidGrant);

    expect(await purgeExpiredOidcModels(db, now)).toBe(2);
    const left = await db
      .selectFrom('oidc_models')
      .select('id')
      .where('id', 'in', ['at-short', 'code-short', 'at-long', 'c-forever'])
      .orderBy('id')
      .execute();
    expect(left.map((row) => row.id)).toEqual(['at-long', 'c-forever']);
  });

  it('purges on a timer until stopped', async () => {
    await adapter('AccessToken', () => Date.now() - 60_000).upsert('at-timer', { kind: 'AccessToken' }, 1);
    const stop = startOidcPurge(db, { intervalMs: 20 });
    try {
      await expect
        .poll(
          async () => (await db.selectFrom('oidc_models').select('id').where('id', '=', 'at-timer').execute()).length,
        )
        .toBe(0);
    } finally {
      stop();
    }
  });

  it('revokeByGrantId removes every model of the grant and nothing else', async () => {
    for (const [model, id, grantId] of [
      ['AccessToken', 'at-g1', 'g-rev-1'],
      ['RefreshToken', 'rt-g1', 'g-rev-1'],
      ['AuthorizationCode', 'ac-g1', 'g-rev-1'],
      ['DeviceCode', 'dc-g1', 'g-rev-1'],
      ['AccessToken', 'at-g2', 'g-rev-2'],
      ['RefreshToken', 'rt-g2', 'g-rev-2'],
    ] as const) {
      await adapter(model).upsert(id, { grantId, kind: model }, 3600);
    }
    await adapter('Grant').upsert('g-rev-1', { accountId: 'u-1', clientId: 'c-1', kind: 'Grant' }, 3600);

    await adapter('AccessToken').revokeByGrantId('g-rev-1');
    const rows = await db
      .selectFrom('oidc_models')
      .select(['model', 'id'])
      .where('id', 'in', ['at-g1', 'rt-g1', 'ac-g1', 'dc-g1', 'at-g2', 'rt-g2', 'g-rev-1'])
      .orderBy('id')
      .execute();
    // The Grant itself is the provider's to destroy (revokeGrantPolicy).
    expect(rows).toEqual([
      { model: 'AccessToken', id: 'at-g2' },
      { model: 'Grant', id: 'g-rev-1' },
      { model: 'RefreshToken', id: 'rt-g2' },
    ]);
  });

  it('of 30 parallel consumes of one code exactly one succeeds; the others are invalid_grant', async () => {
    const codes = adapter('AuthorizationCode');
    await codes.upsert('code-race', { grantId: 'g-race', kind: 'AuthorizationCode' }, 60);
    const outcomes = await atOnce(30, () =>
      codes.consume('code-race').then(
        () => 'consumed',
        (error: unknown) => error,
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'consumed')).toHaveLength(1);
    const refused = outcomes.filter((outcome) => outcome !== 'consumed');
    expect(refused).toHaveLength(29);
    for (const error of refused) expect(error).toBeInstanceOf(errors.InvalidGrant);
  });

  describe('behind oidc-provider', () => {
    let provider: Provider;
    let server: Server;
    let base: string;
    const client = { client_id: 'partner', client_secret: 'partner-secret-of-enough-length-000000' };
    const redirectUri = 'https://partner.example/callback';
    beforeAll(async () => {
      const keys = new SigningKeys(db, SECRET_KEY);
      await keys.init();
      provider = new Provider('http://127.0.0.1/oidc', {
        adapter: oidcAdapterFactory(db),
        clients: [
          {
            ...client,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
          },
        ],
        jwks: keys.jwks(),
        pkce: { required: () => true },
        rotateRefreshToken: true,
        features: { devInteractions: { enabled: false } },
        ttl: { Grant: 3600, AccessToken: 600, RefreshToken: 3600, IdToken: 600, AuthorizationCode: 60 },
        findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      });
      // As Tessera's provider does: a code or refresh token is spent with the tokens it gives.
      provider.use(tokenRequestScope());
      server = createServer(provider.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

    const token = (form: Record<string, string>) =>
      fetch(`${base}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams(form),
      }).then(async (response) => ({
        statusCode: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }));

    async function newGrant() {
      const grant = new provider.Grant({ accountId: 'user-1', clientId: client.client_id });
      grant.addOIDCScope('openid offline_access');
      return { grantId: await grant.save(), partner: (await provider.Client.find(client.client_id))! };
    }

    it('answers two exchanges of one code with one set of tokens and invalid_grant for the rest, never a 500', async () => {
      const { grantId, partner } = await newGrant();
      const verifier = randomBytes(32).toString('base64url');
      const code = await new provider.AuthorizationCode({
        accountId: 'user-1',
        client: partner,
        grantId,
        redirectUri,
        scope: 'openid offline_access',
        gty: 'authorization_code',
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        codeChallengeMethod: 'S256',
      }).save();
      const answers = await atOnce(30, () =>
        token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
      );
      expect(statusCounts(answers)).toEqual({ 200: 1, 400: 29 });
      expect(answers.find((answer) => answer.statusCode === 200)!.body).toHaveProperty('id_token');
      for (const answer of answers.filter((a) => a.statusCode === 400)) expect(answer.body.error).toBe('invalid_grant');
    });

    it('answers parallel uses of one refresh token with one new token and invalid_grant for the rest', async () => {
      const { grantId, partner } = await newGrant();
      const refreshToken = await new provider.RefreshToken({
        accountId: 'user-1',
        client: partner,
        grantId,
        scope: 'openid offline_access',
        gty: 'authorization_code',
      }).save();
      const answers = await atOnce(30, () => token({ grant_type: 'refresh_token', refresh_token: refreshToken }));
      expect(statusCounts(answers)).toEqual({ 200: 1, 400: 29 });
      for (const answer of answers.filter((a) => a.statusCode === 400)) expect(answer.body.error).toBe('invalid_grant');
    });
  });
});

describe('the oidc-provider adapter without its database', () => {
  it('throws temporarily_unavailable (503), with the database error as its cause', async () => {
    const handle = openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', sqlitePath: ':memory:' });
    try {
      const sessions = new OidcAdapter(handle.db, 'Session');
      for (const call of [
        () => sessions.find('s-1'),
        () => sessions.upsert('s-1', {}, 60),
        () => sessions.consume('s-1'),
        () => sessions.revokeByGrantId('g'),
      ]) {
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(OidcStorageUnavailable);
        expect(error).toMatchObject({ statusCode: 503, error: 'temporarily_unavailable', expose: true });
        expect(isDatabaseUnavailable((error as Error).cause)).toBe(true);
      }
      // The purge reports a failed pass and goes on.
      const failures: unknown[] = [];
      const stop = startOidcPurge(handle.db, { intervalMs: 20, onError: (error) => failures.push(error) });
      await expect.poll(() => failures.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      stop();
      expect(isDatabaseUnavailable(failures[0])).toBe(true);
    } finally {
      await handle.close();
    }
  });
});

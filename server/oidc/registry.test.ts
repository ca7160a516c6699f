import { describe, expect, it } from 'vitest';
import type { Db } from '../db/index.ts';
import { nowIso } from '../db/index.ts';
import { databaseKinds, useTestDatabase } from '../testing/harness.ts';
import { OidcAdapter } from './adapter.ts';
import { clientMetadata, clientSecretMatches, findOidcClient } from './clients.ts';
import {
  ClientExists,
  ClientInputError,
  UnknownClient,
  addClient,
  checkClientId,
  checkClientInput,
  editClient,
  listClients,
  newClientSecret,
  removeClient,
  uriProblem,
} from './registry.ts';

describe('what a client registration may say', () => {
  it('takes absolute https URIs, and http only on a loopback host', () => {
    for (const uri of [
      'https://app.example/cb',
      'https://app.example:8443/cb?x=1',
      'http://localhost:3000/cb',
      'http://127.0.0.1/cb',
      'http://client.localhost:3000/auth/callback',
      'http://[::1]:8080/cb',
    ])
      expect(uriProblem(uri), uri).toBeNull();
    expect(uriProblem('http://app.example/cb')).toBe('must be https (http only for localhost and 127.0.0.1)');
    expect(uriProblem('http://localhost.evil.example/cb')).toMatch(/^must be https/);
    expect(uriProblem('/relative/cb')).toBe('is not an absolute URI');
    expect(uriProblem('app.example/cb')).toBe('is not an absolute URI');
    expect(uriProblem('com.example.app:/cb')).toBe('must be https');
    expect(uriProblem('javascript:alert(1)')).toBe('must be https');
    expect(uriProblem('https://app.example/cb#frag')).toBe('may not have a fragment (#)');
    expect(uriProblem('https://app.example/cb#')).toBe('may not have a fragment (#)');
    expect(uriProblem('https://user:pw@app.example/cb')).toBe('may not carry a user name or password');
    expect(uriProblem('https://app.example/c b')).toBe('contains spaces or control characters');
    expect(uriProblem(`https://app.example/${'a'.repeat(2000)}`)).toBe('is longer than 2000 characters');
  });

  it('takes client ids of letters, digits, dot, underscore and dash, up to 64', () => {
    for (const id of ['2', 'deals-partner', 'acme.shop_v2', 'A'.repeat(64)]) expect(checkClientId(id)).toBe(id);
    for (const id of ['', '-acme', 'acme shop', 'acmé', 'a/b', 'A'.repeat(65), 'acme\n']) {
      expect(() => checkClientId(id), JSON.stringify(id)).toThrow(ClientInputError);
    }
  });

  it('checks scopes, names, links and the email, naming the field; cleans what it keeps', () => {
    const bad = (input: Parameters<typeof checkClientInput>[0]) => {
      try {
        checkClientInput(input);
      } catch (error) {
        return [(error as ClientInputError).field, (error as Error).message];
      }
      return null;
    };
    expect(bad({ scopes: ['balance', 'openid'] })).toEqual([
      'scopes',
      expect.stringMatching(/^"openid" is not a consent scope \(balance, /),
    ]);
    expect(bad({ scopes: ['BALANCE'] })?.[0]).toBe('scopes');
    expect(bad({ redirect_uris: [] })).toEqual(['redirect_uris', 'at least one is required']);
    expect(bad({ redirect_uris: ['https://ok.example/cb', 'http://no.example/cb'] })?.[0]).toBe('redirect_uris');
    expect(bad({ name: '   ' })).toEqual(['name', 'may not be empty']);
    expect(bad({ name: 'x'.repeat(101) })).toEqual(['name', 'is longer than 100 characters']);
    expect(bad({ names: { nl: 'A\u0007b' } })).toEqual(['name-nl', 'contains control characters']);
    expect(bad({ names: { en: 'English' } as never })).toEqual([
      'names',
      '"en" is not one of en_LU, fr, fr_LU, nl, de_LU',
    ]);
    expect(bad({ logo: new TextEncoder().encode('<svg/>') })).toEqual([
      'logo',
      'the image is an SVG image: give a PNG, JPEG or WebP one',
    ]);
    expect(bad({ backchannel_logout_uri: 'https://app.example/logout#x' })?.[0]).toBe('backchannel_logout_uri');
    expect(bad({ admin_email: 'not-an-email' })).toEqual([
      'admin_email',
      '"not-an-email" is not a valid email address',
    ]);
    expect(
      checkClientInput({
        name: ' Acme ',
        names: { fr: ' Acmé ' },
        scopes: ['balance', 'user', 'balance'],
        admin_email: ' Ops@Acme.Example ',
        redirect_uris: ['https://acme.example/cb', 'https://acme.example/cb'],
        logo: null,
      }),
    ).toEqual({
      name: 'Acme',
      names: { fr: 'Acmé' },
      scopes: ['balance', 'user'],
      admin_email: 'ops@acme.example',
      redirect_uris: ['https://acme.example/cb'],
      logo: null,
    });
  });

  it('makes secrets of 32 random bytes, base64url', () => {
    const secrets = new Set(Array.from({ length: 20 }, newClientSecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) expect(secret).toMatch(/^[\w-]{43}$/);
  });
});

const kinds = await databaseKinds();

describe.each(kinds)('registering clients on %s', (kind) => {
  let db: Db;
  useTestDatabase(kind, (handle) => {
    db = handle.db;
  });

  it("adds a client once, keeping only the digest of a confidential one's secret", async () => {
    const { secret } = await addClient(
      db,
      'acme',
      { name: 'Acme', redirect_uris: ['https://acme.example/cb'], scopes: ['balance'] },
      { confidential: true },
    );
    expect(secret).toMatch(/^[\w-]{43}$/);
    const row = (await findOidcClient(db, 'acme'))!;
    expect(row.secret_hash).not.toBe(secret);
    expect(clientSecretMatches(row.secret_hash!, secret!)).toBe(true);
    expect(JSON.stringify(await db.selectFrom('oauth_clients').selectAll().execute())).not.toContain(secret);
    expect(clientMetadata(row, 'https://account.tessera.example')).not.toHaveProperty('logo_uri');
    expect(clientMetadata(row, 'https://account.tessera.example')).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      scope: expect.stringContaining('balance'),
    });
    await expect(addClient(db, 'acme', { name: 'Other', redirect_uris: ['https://other.example/cb'] })).rejects.toThrow(
      ClientExists,
    );
    expect((await findOidcClient(db, 'acme'))!.name).toBe('Acme');
    // A bad value writes nothing.
    await expect(addClient(db, 'bad', { name: 'Bad', redirect_uris: ['http://bad.example/cb'] })).rejects.toThrow(
      ClientInputError,
    );
    expect(await findOidcClient(db, 'bad')).toBeUndefined();
  });

  it('edits what it is told, merges names by locale, and rotates or drops the secret', async () => {
    await addClient(db, 'shop', {
      name: 'Shop',
      names: { fr: 'Boutique', nl: 'Winkel' },
      redirect_uris: ['https://shop.example/cb'],
      admin_email: 'a@shop.example',
    });
    await editClient(db, 'shop', {
      names: { nl: 'Webwinkel' },
      scopes: ['user'],
      admin_email: null,
      require_mfa: true,
    });
    let [shop] = (await listClients(db)).filter((c) => c.client_id === 'shop');
    expect(shop).toMatchObject({
      name: 'Shop',
      names: { fr: 'Boutique', nl: 'Webwinkel' },
      scopes: ['user'],
      admin_email: null,
      require_mfa: true,
      confidential: false,
      redirect_uris: ['https://shop.example/cb'],
      first_party: false,
    });
    const first = (await editClient(db, 'shop', {}, { secret: 'new' })).secret!;
    const second = (await editClient(db, 'shop', {}, { secret: 'new' })).secret!;
    const row = (await findOidcClient(db, 'shop'))!;
    expect([clientSecretMatches(row.secret_hash!, first), clientSecretMatches(row.secret_hash!, second)]).toEqual([
      false,
      true,
    ]);
    expect(await editClient(db, 'shop', {}, { secret: 'none' })).toEqual({ secret: null });
    [shop] = (await listClients(db)).filter((c) => c.client_id === 'shop');
    expect(shop!.confidential).toBe(false);
    await expect(editClient(db, 'nobody', { name: 'X' })).rejects.toThrow(UnknownClient);
  });

  it('removes a client with its grants, what they issued and any model naming it, and nothing of another client', async () => {
    await addClient(db, 'gone', { name: 'Gone', redirect_uris: ['https://gone.example/cb'] });
    await addClient(db, 'stays', { name: 'Stays', redirect_uris: ['https://stays.example/cb'] });
    const model = (name: string) => new OidcAdapter(db, name);
    const expiresIn = 3600;
    for (const clientId of ['gone', 'stays']) {
      const grantId = `grant-${clientId}`;
      await model('Grant').upsert(grantId, { jti: grantId, kind: 'Grant', clientId, accountId: 'u1' }, expiresIn);
      await model('RefreshToken').upsert(
        `rt-${clientId}`,
        { jti: `rt-${clientId}`, kind: 'RefreshToken', clientId, accountId: 'u1', grantId },
        expiresIn,
      );
      await model('AccessToken').upsert(
        `at-${clientId}`,
        { jti: `at-${clientId}`, kind: 'AccessToken', clientId, accountId: 'u1', grantId },
        expiresIn,
      );
      // Issued under the grant, its client not named in the payload.
      await model('AuthorizationCode').upsert(
        `code-${clientId}`,
        { jti: `code-${clientId}`, kind: 'AuthorizationCode', grantId },
        expiresIn,
      );
    }
    await db
      .insertInto('partner_access_requests')
      .values({ id: 'r1', user_id: 'u1', client_id: 'gone', created_at: nowIso() })
      .execute();
    expect(await removeClient(db, 'gone')).toEqual({ grants: 1, models: 4 });
    const left = await db.selectFrom('oidc_models').select(['model', 'id']).where('id', 'like', '%-gone').execute();
    expect(left).toEqual([]);
    expect(
      (await db.selectFrom('oidc_models').select('id').where('id', 'like', '%-stays').execute())
        .map((r) => r.id)
        .sort(),
    ).toEqual(['at-stays', 'code-stays', 'grant-stays', 'rt-stays']);
    expect(await findOidcClient(db, 'gone')).toBeUndefined();
    expect(
      await db.selectFrom('partner_access_requests').select('id').where('client_id', '=', 'gone').execute(),
    ).toEqual([]);
    await expect(removeClient(db, 'gone')).rejects.toThrow(UnknownClient);
  });
});

import { createPublicKey, createSign, createVerify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import { decryptSecret, encryptSecret } from '../config/secrets.ts';
import { atOnce } from '../testing/concurrency.ts';
import { createTestDatabase, databaseKinds } from '../testing/harness.ts';
import {
  RETIRED_KEY_GRACE_SECONDS,
  RotationConflict,
  SigningKeys,
  SigningKeysLocked,
  keysVersion,
  listSigningKeys,
  rotateSigningKeys,
} from './keys.ts';

const kinds = await databaseKinds();
const SECRET_KEY = 'oidc-keys-test-secret-key-of-at-least-32-chars';
const OTHER_KEY = 'another-secret-key-of-at-least-32-characters!!';

describe.each(kinds)('the OIDC signing keys on %s', (kind) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => database?.drop());

  const rows = (db: Db) =>
    db.selectFrom('oidc_signing_keys').selectAll().orderBy('generation').orderBy('alg').execute();

  it('parallel first starts of several instances create exactly one key set, which they all load', async () => {
    const dbs = await Promise.all(Array.from({ length: 6 }, async () => (await database.open()).db));
    const instances = dbs.map((db) => new SigningKeys(db, SECRET_KEY));
    await atOnce(instances.length, (i) => instances[i]!.init());
    const stored = await rows(dbs[0]!);
    expect(stored.map((row) => [Number(row.generation), row.alg, row.retired_at])).toEqual([
      [1, 'ES256', null],
      [1, 'RS256', null],
    ]);
    const kids = stored.map((row) => row.kid).sort();
    for (const instance of instances) {
      expect(instance.version).toBe(1);
      expect(
        instance
          .jwks()
          .keys.map((key) => key.kid)
          .sort(),
      ).toEqual(kids);
    }
    // RS256 first: the provider signs with the first key of an algorithm, and RS256 is its default.
    const [rsa, ec] = instances[0]!.jwks().keys;
    expect(rsa).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(Buffer.from(rsa!.n!, 'base64url')).toHaveLength(256);
    expect(ec).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    // A later start creates nothing.
    await new SigningKeys(dbs[0]!, SECRET_KEY).init();
    expect(await rows(dbs[0]!)).toHaveLength(2);
  });

  it('keeps the private JWK only sealed: the stored columns hold no private member, and the keys sign', async () => {
    const db = (await database.open()).db;
    const keys = new SigningKeys(db, SECRET_KEY);
    await keys.init();
    const stored = await rows(db);
    for (const jwk of keys.jwks().keys) {
      const row = stored.find((r) => r.kid === jwk.kid)!;
      expect(typeof jwk.d).toBe('string');
      expect(row.private_jwk_sealed).not.toContain(jwk.d);
      expect(row.private_jwk_sealed).not.toContain('"d"');
      expect(JSON.parse(row.public_jwk)).not.toHaveProperty('d');
      expect(row.public_jwk).not.toContain(jwk.d);
      // The private JWK signs what the stored public JWK verifies.
      const signature = createSign('sha256')
        .update('payload')
        .sign({ key: jwk as never, format: 'jwk' });
      expect(
        createVerify('sha256')
          .update('payload')
          .verify(createPublicKey({ key: JSON.parse(row.public_jwk), format: 'jwk' }), signature),
      ).toBe(true);
    }
  });

  it('refuses to open the keys with another SECRET_KEY, with a clear configuration error', async () => {
    const db = (await database.open()).db;
    const error = await new SigningKeys(db, OTHER_KEY).init().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SigningKeysLocked);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^the OIDC signing key \S+ cannot be decrypted with this SECRET_KEY: run with the SECRET_KEY the keys were created with$/,
    );
    // Nor does a rotation seal new keys under it.
    const before = await keysVersion(db);
    await expect(rotateSigningKeys(db, OTHER_KEY)).rejects.toBeInstanceOf(SigningKeysLocked);
    expect(await keysVersion(db)).toBe(before);
    // A sealed key copied into another row does not open there (it is bound to its kid).
    const [first, second] = await rows(db);
    await db
      .updateTable('oidc_signing_keys')
      .set({ private_jwk_sealed: first!.private_jwk_sealed })
      .where('kid', '=', second!.kid)
      .execute();
    await expect(new SigningKeys(db, SECRET_KEY).init()).rejects.toBeInstanceOf(SigningKeysLocked);
    await db
      .updateTable('oidc_signing_keys')
      .set({ private_jwk_sealed: second!.private_jwk_sealed })
      .where('kid', '=', second!.kid)
      .execute();
  });

  it('rotates: the new keys sign, the old stay published until their grace ends; another instance sees it on its next poll', async () => {
    const db = (await database.open()).db;
    const one = new SigningKeys(db, SECRET_KEY);
    let now = Date.now();
    const two = new SigningKeys((await database.open()).db, SECRET_KEY, { now: () => now });
    await one.init();
    await two.init();
    const oldKids = two.jwks().keys.map((key) => key.kid);
    expect(await two.loadIfChanged()).toBe(false);

    const rotated = await rotateSigningKeys(db, SECRET_KEY);
    expect(rotated.generation).toBe(2);
    expect(await one.loadIfChanged()).toBe(true);
    expect(await two.loadIfChanged()).toBe(true);
    expect(two.version).toBe(2);
    expect(await two.loadIfChanged()).toBe(false);
    for (const instance of [one, two]) {
      expect(instance.jwks().keys.map((key) => key.kid)).toEqual([...rotated.kids, ...oldKids]);
    }
    expect(two.jwks().keys.map((key) => key.alg)).toEqual(['RS256', 'ES256', 'RS256', 'ES256']);
    const listed = await listSigningKeys(db);
    expect(listed.map((key) => [key.generation, key.retiredAt === null, key.published])).toEqual([
      [2, true, true],
      [2, true, true],
      [1, false, true],
      [1, false, true],
    ]);

    now += RETIRED_KEY_GRACE_SECONDS * 1000 + 1000;
    expect(two.jwks().keys.map((key) => key.kid)).toEqual(rotated.kids);
    expect((await listSigningKeys(db, now)).map((key) => key.published)).toEqual([true, true, false, false]);
  });

  it('of rotations at once, those that overlap write once and the others say so; never two key sets of one generation', async () => {
    const db = (await database.open()).db;
    const before = await keysVersion(db);
    const outcomes = await atOnce(4, () =>
      rotateSigningKeys(db, SECRET_KEY).then(
        () => 'rotated',
        (error: unknown) => error,
      ),
    );
    // Rotations that read the same generation race for it: one writes, the others get the conflict.
    // On a busy machine one may start after another finished, and then rightly writes the next one.
    const rotated = outcomes.filter((o) => o === 'rotated').length;
    expect(rotated).toBeGreaterThanOrEqual(1);
    for (const other of outcomes.filter((o) => o !== 'rotated')) expect(other).toBeInstanceOf(RotationConflict);
    expect(await keysVersion(db)).toBe(before + rotated);
    const keys = await listSigningKeys(db);
    expect(keys.filter((key) => key.retiredAt === null)).toHaveLength(2);
    const perGeneration = new Map<number, number>();
    for (const key of keys) perGeneration.set(key.generation, (perGeneration.get(key.generation) ?? 0) + 1);
    expect([...perGeneration.values()].every((count) => count === 2)).toBe(true);
  });
});

describe('secrets at rest', () => {
  it('still opens TOTP secrets sealed before the signing keys shared the cipher code', () => {
    // Sealed by the earlier code (key: sha256 of "totp:" + SECRET_KEY).
    const sealed = 'qbtZLT2BdpL_coHC.a4wH1NAE2RB5AmoMBTITNQ.9V6ltFIdSSyH1iypNbot1A';
    expect(decryptSecret(SECRET_KEY, sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => decryptSecret(OTHER_KEY, sealed)).toThrow();
    expect(decryptSecret(SECRET_KEY, encryptSecret(SECRET_KEY, 'JBSWY3DPEHPK3PXP'))).toBe('JBSWY3DPEHPK3PXP');
  });
});

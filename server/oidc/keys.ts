// The provider's signing keys: one RS256 (RSA 2048) and one ES256 (P-256) key per generation, in
// oidc_signing_keys. The private JWK is sealed with a key derived from SECRET_KEY, bound to its kid;
// the public JWK is kept beside it for listing. The highest generation signs; older generations are
// retired and stay published for a grace period, so tokens they signed still verify.
//
// Races between instances are decided by the unique index on (generation, alg): the first start
// inserts generation 1 with `on conflict do nothing`, so two instances starting at once on one
// database end with one key set; a rotation inserts generation n+1 plainly, so of two rotations at
// once one fails. Rows are never deleted, which keeps generation 1 taken for good.
import { createPublicKey, generateKeyPair, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { ConfigError } from '../config/index.ts';
import { isUniqueViolation, nowIso, type Db } from '../db/index.ts';
import { openFor, sealFor } from '../config/secrets.ts';

export const SIGNING_ALGS = ['RS256', 'ES256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

/** How long a retired key stays published. Longer than any token it signed lives (ID tokens: an
 * hour), and long enough for an old ID token still sent as id_token_hint at sign-out. */
export const RETIRED_KEY_GRACE_SECONDS = 14 * 86_400;

const PURPOSE = 'oidc-signing-key';

export type SigningJwk = JsonWebKey & { kid: string; alg: SigningAlg; use: 'sig' };

/** The stored private keys cannot be opened: SECRET_KEY is not the one they were sealed with. */
export class SigningKeysLocked extends ConfigError {}

/** Another rotation wrote the next generation first. */
export class RotationConflict extends Error {}

const generate = promisify(generateKeyPair);

async function newKey(alg: SigningAlg): Promise<{ kid: string; privateJwk: SigningJwk; publicJwk: SigningJwk }> {
  const { privateKey } =
    alg === 'RS256'
      ? ((await generate('rsa', { modulusLength: 2048 })) as { privateKey: KeyObject })
      : ((await generate('ec', { namedCurve: 'P-256' })) as { privateKey: KeyObject });
  const kid = randomBytes(16).toString('base64url');
  const meta = { kid, alg, use: 'sig' as const };
  return {
    kid,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), ...meta },
    publicJwk: { ...createPublicKey(privateKey).export({ format: 'jwk' }), ...meta },
  };
}

async function newKeySet(secretKey: string, generation: number, now: number) {
  const keys = await Promise.all(SIGNING_ALGS.map(newKey));
  return keys.map(({ kid, privateJwk, publicJwk }) => ({
    kid,
    generation,
    alg: privateJwk.alg,
    public_jwk: JSON.stringify(publicJwk),
    private_jwk_sealed: sealFor(secretKey, PURPOSE, JSON.stringify(privateJwk), kid),
    created_at: nowIso(now),
    retired_at: null,
  }));
}

function openKey(secretKey: string, row: { kid: string; private_jwk_sealed: string }): SigningJwk {
  try {
    return JSON.parse(openFor(secretKey, PURPOSE, row.private_jwk_sealed, row.kid)) as SigningJwk;
  } catch {
    throw new SigningKeysLocked(
      `the OIDC signing key ${row.kid} cannot be decrypted with this SECRET_KEY: ` +
        'run with the SECRET_KEY the keys were created with',
    );
  }
}

/** The highest generation stored (0: none yet). Cheap: what instances poll to see a rotation. */
export async function keysVersion(db: Db): Promise<number> {
  const row = await db
    .selectFrom('oidc_signing_keys')
    .select(sql<number | null>`max(generation)`.as('v'))
    .executeTakeFirst();
  return Number(row?.v ?? 0);
}

/** Creates the first key set unless one exists; safe when several instances start at once. */
export async function ensureSigningKeys(db: Db, secretKey: string, now = Date.now()): Promise<void> {
  // Only spares generating keys on every start: the unique index decides.
  if ((await keysVersion(db)) > 0) return;
  const rows = await newKeySet(secretKey, 1, now);
  await db
    .insertInto('oidc_signing_keys')
    .values(rows)
    .onConflict((oc) => oc.columns(['generation', 'alg']).doNothing())
    .execute();
}

/** Adds a new key set and retires the current one (still published for the grace period). */
export async function rotateSigningKeys(
  db: Db,
  secretKey: string,
  now = Date.now(),
): Promise<{ generation: number; kids: string[] }> {
  // New keys sealed with a SECRET_KEY the servers do not have would stop every instance: check it
  // opens the keys already there first.
  const current = await db
    .selectFrom('oidc_signing_keys')
    .select(['kid', 'private_jwk_sealed'])
    .orderBy('generation', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (current) openKey(secretKey, current);
  const generation = (await keysVersion(db)) + 1;
  const rows = await newKeySet(secretKey, generation, now);
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('oidc_signing_keys').values(rows).execute();
      await trx
        .updateTable('oidc_signing_keys')
        .set({ retired_at: nowIso(now) })
        .where('generation', '<', generation)
        .where('retired_at', 'is', null)
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new RotationConflict(
        'another rotation of the OIDC signing keys ran at the same time; list the keys to see it',
      );
    throw error;
  }
  return { generation, kids: rows.map((row) => row.kid) };
}

export type SigningKeyInfo = {
  kid: string;
  alg: string;
  generation: number;
  createdAt: string;
  retiredAt: string | null;
  published: boolean;
};

/** Every key, newest first, and whether it is still published. */
export async function listSigningKeys(
  db: Db,
  now = Date.now(),
  graceSeconds = RETIRED_KEY_GRACE_SECONDS,
): Promise<SigningKeyInfo[]> {
  const rows = await db
    .selectFrom('oidc_signing_keys')
    .select(['kid', 'alg', 'generation', 'created_at', 'retired_at'])
    .orderBy('generation', 'desc')
    .orderBy('alg', 'desc')
    .execute();
  return rows.map((row) => ({
    kid: row.kid,
    alg: row.alg,
    generation: Number(row.generation),
    createdAt: row.created_at,
    retiredAt: row.retired_at,
    published: row.retired_at === null || Date.parse(row.retired_at) + graceSeconds * 1000 > now,
  }));
}

type LoadedKey = { jwk: SigningJwk; generation: number; retiredAt: number | null };

/** One instance's view of the keys: loaded at start, reloaded when another instance rotated. */
export class SigningKeys {
  private readonly db: Db;
  private readonly secretKey: string;
  private readonly graceMs: number;
  private readonly now: () => number;
  private keys: LoadedKey[] = [];
  /** The generation loaded (0: nothing loaded yet). */
  version = 0;

  constructor(db: Db, secretKey: string, options: { graceSeconds?: number; now?: () => number } = {}) {
    this.db = db;
    this.secretKey = secretKey;
    this.graceMs = (options.graceSeconds ?? RETIRED_KEY_GRACE_SECONDS) * 1000;
    this.now = options.now ?? Date.now;
  }

  /** First start: creates the key set if there is none, then loads. */
  async init(): Promise<void> {
    await ensureSigningKeys(this.db, this.secretKey, this.now());
    await this.load();
  }

  private async load(): Promise<void> {
    const since = nowIso(this.now() - this.graceMs);
    const rows = await this.db
      .selectFrom('oidc_signing_keys')
      .select(['kid', 'generation', 'private_jwk_sealed', 'retired_at'])
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', since)]))
      .orderBy('generation', 'desc')
      .orderBy('alg', 'desc')
      .execute();
    // Decrypted before anything is replaced: a key that cannot be opened leaves the loaded ones in use.
    this.keys = rows.map((row) => ({
      jwk: openKey(this.secretKey, row),
      generation: Number(row.generation),
      retiredAt: row.retired_at === null ? null : Date.parse(row.retired_at),
    }));
    this.version = this.keys.reduce((highest, key) => Math.max(highest, key.generation), 0);
  }

  /** Reloads when the database holds another generation than the one loaded; says whether it did. */
  async loadIfChanged(): Promise<boolean> {
    if ((await keysVersion(this.db)) === this.version) return false;
    await this.load();
    return true;
  }

  /** The private JWKS for oidc-provider's `jwks` option: the signing generation first (the provider
   * signs with the first key of an algorithm), then retired keys still in their grace period. */
  jwks(): { keys: SigningJwk[] } {
    const now = this.now();
    return {
      keys: this.keys
        .filter((key) => key.retiredAt === null || key.retiredAt + this.graceMs > now)
        .map((key) => key.jwk),
    };
  }
}

// A passkey (WebAuthn, through @simplewebauthn/server) as a second factor. No code is sent: a
// challenge asks the browser to sign a random value, and the answer is the signed credential.
// - The random value is kept hashed in the challenge's code_hash, bound to its challenge as a code
//   is, and the challenge lives 5 minutes.
// - Origin and relying-party id come from the configured public origins, never from the request:
//   the relying party is the Belgian origin's host (docs/operations/passkeys.md).
// - A credential proves one account: its id is unique across accounts, and registering one that is
//   known anywhere is refused as any other failure is.
// - A signature counter that does not move forward (where the authenticator keeps one) is refused
//   and written in the history: the passkey may have been cloned.
import { createHmac } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticatorTransport,
} from '@simplewebauthn/server';
import type { PasskeyCredential, PasskeyOptions } from '../../contract/schemas.ts';
import { nowIso, type Db } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { tellAccount } from '../delivery/notices.ts';
import { accountLabel, languageOf } from '../identity/accounts.ts';
import { hashCode, sameHash } from './codes.ts';
import { describeRow, type ChallengeMethod, type MethodDeps, type Verdict } from './method.ts';
import { providerOf } from './passkey-providers.ts';

/** How long a passkey's challenge may be answered (WebAuthn's own timeout is the same). */
export const PASSKEY_TTL_SECONDS = 300;
const TIMEOUT_MS = PASSKEY_TTL_SECONDS * 1000;

/** What a registration proved: the new credential, written by the activation's binding. */
export type NewPasskey = {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  aaguid: string;
  synced: boolean;
};

/** The relying party: its id is the Belgian origin's host; every configured origin may answer. */
export function relyingParty(config: MethodDeps['config']): { id: string; origins: string[] } {
  return { id: new URL(config.publicOrigins.be).hostname, origins: Object.values(config.publicOrigins) };
}

/** The account's WebAuthn user handle: stable, and telling nothing of the account's id. */
export function userHandle(secretKey: string, userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHmac('sha256', secretKey).update(`webauthn-user:${userId}`).digest());
}

/** How a password manager names the account's passkeys: its first address, and the person's name. */
export async function passkeyUserOf(db: Db, userId: string): Promise<{ name: string; displayName: string }> {
  const person = await db
    .selectFrom('users')
    .select(['firstname', 'lastname'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return {
    name: await accountLabel(db, userId),
    displayName: [person?.firstname, person?.lastname].filter(Boolean).join(' '),
  };
}

/** What the browser tells the password manager of an account (WebAuthn's Signal API): the relying
 * party, the account's user handle, the passkeys the server still takes, and its current names. */
export async function passkeyAccountOf(deps: Pick<MethodDeps, 'config' | 'db'>, userId: string) {
  return {
    rpId: relyingParty(deps.config).id,
    userId: Buffer.from(userHandle(deps.config.secretKey, userId)).toString('base64url'),
    credentialIds: (await passkeysOf(deps.db, userId)).map((row) => row.credential_id),
    ...(await passkeyUserOf(deps.db, userId)),
  };
}

export type StoredPasskey = {
  credential_id: string;
  public_key: string;
  counter: number | string;
  transports: string | null;
  synced: number;
};

export const transportsOf = (row: { transports: string | null }) =>
  (row.transports ? JSON.parse(row.transports) : []) as AuthenticatorTransport[];

async function passkeysOf(db: Db, userId: string, methodId?: number): Promise<StoredPasskey[]> {
  return db
    .selectFrom('passkeys')
    .innerJoin('mfa_methods', 'mfa_methods.id', 'passkeys.method_id')
    .select(['credential_id', 'public_key', 'counter', 'transports', 'synced'])
    .where('mfa_methods.user_id', '=', userId)
    .$if(methodId !== undefined, (q) => q.where('passkeys.method_id', '=', methodId!))
    .execute();
}

/** A stored passkey, with its account and method. */
export type HeldPasskey = StoredPasskey & { userId: string; methodId: number };

/** Checks an assertion against a stored passkey: the signature over the expected challenge, from a
 * configured origin for our relying party, its user verified where asked, and a counter that moves
 * forward. Its verdict's `spend` moves the counter, so of two racing assertions one succeeds. */
export async function checkAssertion(
  { config, db }: MethodDeps,
  stored: HeldPasskey,
  credential: PasskeyCredential,
  rules: { expectedChallenge: (challenge: string) => boolean; userVerified: boolean },
): Promise<Verdict> {
  const rp = relyingParty(config);
  const storedCounter = Number(stored.counter);
  const checked = await verifyAuthenticationResponse({
    response: credential as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
    expectedChallenge: rules.expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    // The counter is compared below, where a regression is also written down.
    credential: {
      id: stored.credential_id,
      publicKey: Buffer.from(stored.public_key, 'base64url'),
      counter: 0,
      transports: transportsOf(stored),
    },
    requireUserVerification: rules.userVerified,
  }).catch(() => null);
  if (!checked?.verified) return { right: false };
  const { newCounter, credentialDeviceType } = checked.authenticationInfo;
  // A synced passkey keeps no counter (0 each time); any other must move forward.
  if ((newCounter > 0 || storedCounter > 0) && newCounter <= storedCounter) {
    await recordEvent(db, {
      type: 'passkey_counter_regressed',
      userId: stored.userId,
      ip: null,
      deviceKey: null,
      detail: { id: stored.methodId, counter: newCounter, expected: storedCounter + 1 },
    });
    return { right: false };
  }
  return {
    right: true,
    // RFC 8176: a key bound to hardware, or one kept in software that syncs (backup eligible).
    amr: stored.synced === 1 || credentialDeviceType === 'multiDevice' ? 'swk' : 'hwk',
    // Of two assertions racing past the same counter, one moves it.
    spend: async (trx) => {
      const moved = await trx
        .updateTable('passkeys')
        .set({ counter: newCounter, last_used_at: nowIso() })
        .where('method_id', '=', stored.methodId)
        .where((eb) => eb.or([eb('counter', '<', newCounter), eb('counter', '=', 0)]))
        .executeTakeFirst();
      return Number(moved.numUpdatedRows) === 1;
    },
  };
}

/** The credential a challenge's answer carries, or null when it is not one. */
export function credentialOf(answer: string): PasskeyCredential | null {
  try {
    const parsed = JSON.parse(answer) as PasskeyCredential;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.id === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

export const passkey: ChallengeMethod = {
  kind: 'passkey',
  ttlSeconds: PASSKEY_TTL_SECONDS,
  wrong: 'passkey_refused',
  async ask({ config, db }, { challengeId, userId, methodId }) {
    const rp = relyingParty(config);
    const options =
      methodId === null
        ? await generateRegistrationOptions({
            rpName: 'Tessera',
            rpID: rp.id,
            userID: userHandle(config.secretKey, userId),
            ...(await passkeyUserOf(db, userId).then(({ name, displayName }) => ({
              userName: name,
              userDisplayName: displayName,
            }))),
            attestationType: 'none',
            // The account's own passkeys are not made twice on one authenticator.
            excludeCredentials: (await passkeysOf(db, userId)).map((row) => ({
              id: row.credential_id,
              transports: transportsOf(row),
            })),
            authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
            timeout: TIMEOUT_MS,
          })
        : await generateAuthenticationOptions({
            rpID: rp.id,
            allowCredentials: (await passkeysOf(db, userId, methodId)).map((row) => ({
              id: row.credential_id,
              transports: transportsOf(row),
            })),
            userVerification: 'preferred',
            timeout: TIMEOUT_MS,
          });
    return { codeHash: hashCode(config.secretKey, challengeId, options.challenge), options: options as PasskeyOptions };
  },
  async verify({ config, db }, held, answer) {
    const credential = credentialOf(answer);
    if (!credential || held.codeHash === null || held.userId === null) return { right: false };
    const rp = relyingParty(config);
    const expectedChallenge = (challenge: string) =>
      sameHash(held.codeHash!, hashCode(config.secretKey, held.id, challenge));
    if (held.methodId === null) return register(db, rp, credential, expectedChallenge);

    const [stored] = await passkeysOf(db, held.userId, held.methodId);
    if (!stored || stored.credential_id !== credential.id) return { right: false };
    return checkAssertion({ config, db }, { ...stored, userId: held.userId, methodId: held.methodId }, credential, {
      expectedChallenge,
      userVerified: false,
    });
  },
  describe(row) {
    const key = row.passkey;
    return {
      ...describeRow(row),
      ...(key?.name ? { name: key.name } : {}),
      ...(key && providerOf(key.aaguid) ? { provider: providerOf(key.aaguid)! } : {}),
      ...(key ? { created_at: key.created_at, synced: key.synced } : {}),
      ...(key?.last_used_at ? { last_used_at: key.last_used_at } : {}),
    };
  },
  activation: {
    async bind(deps, { trx, userId, first, credential, addMethod }) {
      const key = credential!;
      const id = await addMethod({ method: 'passkey', primary: first });
      // One account per credential: a race with another account's registration loses here.
      const inserted = await trx
        .insertInto('passkeys')
        .values({
          method_id: id,
          credential_id: key.credentialId,
          public_key: key.publicKey,
          counter: key.counter,
          transports: JSON.stringify(key.transports),
          aaguid: key.aaguid,
          synced: key.synced ? 1 : 0,
          name: null,
          created_at: nowIso(),
          last_used_at: null,
        })
        .onConflict((c) => c.doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) throw new PasskeyTaken();
      // A way into the account was added: its owner hears of it, as of a new address.
      await tellAccount(deps, trx, { userId, language: await languageOf(trx, userId) }, 'passkey_added', {});
      return { id };
    },
  },
};

/** The credential is some account's already: refused as any failed registration is. */
export class PasskeyTaken extends Error {}

async function register(
  db: Db,
  rp: { id: string; origins: string[] },
  credential: PasskeyCredential,
  expectedChallenge: (challenge: string) => boolean,
) {
  const checked = await verifyRegistrationResponse({
    response: credential as Parameters<typeof verifyRegistrationResponse>[0]['response'],
    expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch(() => null);
  if (!checked?.verified) return { right: false };
  const { credential: made, aaguid, credentialDeviceType } = checked.registrationInfo;
  const known = await db
    .selectFrom('passkeys')
    .select('method_id')
    .where('credential_id', '=', made.id)
    .executeTakeFirst();
  if (known) return { right: false };
  return {
    right: true,
    credential: {
      credentialId: made.id,
      publicKey: Buffer.from(made.publicKey).toString('base64url'),
      counter: made.counter,
      transports: made.transports ?? [],
      aaguid,
      // Backup eligible: the passkey syncs across its owner's devices.
      synced: credentialDeviceType === 'multiDevice',
    } satisfies NewPasskey,
  };
}

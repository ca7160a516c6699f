// A WebAuthn authenticator in software, for the server's tests: it makes real credentials (P-256
// keys, or ML-DSA-44 ones as a post-quantum authenticator would; "none" attestation) and signs real
// assertions, as a security key or a phone would, so the server's checks run on genuine signatures.
// The browser tests use Chromium's virtual authenticator.
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { PasskeyCredential } from '../../contract/schemas.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

type Options = { challenge: string; rp?: { id?: string }; rpId?: string };

/** ES256 (P-256), or ML-DSA-44 (COSE -48), whose signatures are some 2.4 kB. */
export type SoftAlgorithm = 'ES256' | 'ML-DSA-44';

export type SoftPasskey = {
  id: string;
  privateKey: KeyObject;
  algorithm: SoftAlgorithm;
  rpId: string;
  counter: number;
  /** Backup eligible: a synced passkey (its counter stays 0). */
  synced: boolean;
};

const FLAGS = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 };

function authenticatorData(rpId: string, flags: number, counter: number, attested?: Uint8Array): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
}

function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** Makes a passkey for a registration's options, and the registration response the browser would send. */
export function register(
  options: Options,
  input: {
    origin: string;
    synced?: boolean;
    aaguid?: string;
    rpId?: string;
    reuse?: SoftPasskey;
    algorithm?: SoftAlgorithm;
  },
): { passkey: SoftPasskey; credential: PasskeyCredential } {
  const rpId = input.rpId ?? options.rp?.id ?? '';
  const algorithm = input.reuse?.algorithm ?? input.algorithm ?? 'ES256';
  // `reuse`: the same credential offered again (to another account, say).
  const privateKey =
    input.reuse?.privateKey ??
    (algorithm === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
      : generateKeyPairSync('ml-dsa-44').privateKey);
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey & { pub?: string };
  // COSE keys: EC2 (kty 2) for ES256, AKP (kty 7) for ML-DSA-44.
  const cose =
    algorithm === 'ES256'
      ? new Map<number, number | Uint8Array>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ])
      : new Map<number, number | Uint8Array>([
          [1, 7],
          [3, -48],
          [-1, Buffer.from(jwk.pub!, 'base64url')],
        ]);
  const id = input.reuse ? Buffer.from(input.reuse.id, 'base64url') : randomBytes(16);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(id.length);
  const aaguid = Buffer.from((input.aaguid ?? '00000000-0000-0000-0000-000000000000').replaceAll('-', ''), 'hex');
  const attested = Buffer.concat([aaguid, length, id, isoCBOR.encode(cose)]);
  const synced = input.synced ?? false;
  const flags = FLAGS.up | FLAGS.uv | FLAGS.at | (synced ? FLAGS.be | FLAGS.bs : 0);
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authenticatorData(rpId, flags, 0, attested)],
    ]) as Parameters<typeof isoCBOR.encode>[0],
  );
  return {
    passkey: { id: b64(id), privateKey, algorithm, rpId, counter: 0, synced },
    credential: {
      id: b64(id),
      rawId: b64(id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64(clientData('webauthn.create', options.challenge, input.origin)),
        attestationObject: b64(attestationObject),
        transports: ['internal'],
      },
    },
  };
}

/** Signs an authentication's options with a passkey, as the browser would send the assertion. A
 * device-bound passkey's counter moves on by one each time (unless `counter` says what to send). */
export function assert(
  passkey: SoftPasskey,
  options: Options,
  input: { origin: string; counter?: number; rpId?: string; userVerified?: boolean; userHandle?: string },
): PasskeyCredential {
  const counter = input.counter ?? (passkey.synced ? 0 : passkey.counter + 1);
  if (!passkey.synced) passkey.counter = counter;
  const verified = input.userVerified ?? true;
  const flags = FLAGS.up | (verified ? FLAGS.uv : 0) | (passkey.synced ? FLAGS.be | FLAGS.bs : 0);
  const data = authenticatorData(input.rpId ?? passkey.rpId, flags, counter);
  const client = clientData('webauthn.get', options.challenge, input.origin);
  const signed = Buffer.concat([data, sha256(client)]);
  const signature = sign(passkey.algorithm === 'ES256' ? 'sha256' : null, signed, passkey.privateKey);
  return {
    id: passkey.id,
    rawId: passkey.id,
    type: 'public-key',
    authenticatorAttachment: 'platform',
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64(client),
      authenticatorData: b64(data),
      signature: b64(signature),
      ...(input.userHandle ? { userHandle: input.userHandle } : {}),
    },
  };
}

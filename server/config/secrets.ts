// Secrets at rest: AES-256-GCM with a key derived from SECRET_KEY, one key per purpose.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

// TOTP secrets were sealed before there were other purposes: their key derivation stays as it was.
const totpKey = (secretKey: string) => createHash('sha256').update(`totp:${secretKey}`).digest();

// Other purposes get their own key through HKDF, so one purpose's ciphertext never opens as another's.
// Derived once per key and purpose: a refresh grant seals its answer (server/oidc/refreshRepeat.ts).
const purposeKeys = new Map<string, Buffer>();
function purposeKey(secretKey: string, purpose: string): Buffer {
  const name = `${purpose}\u0000${secretKey}`;
  let key = purposeKeys.get(name);
  if (!key) purposeKeys.set(name, (key = Buffer.from(hkdfSync('sha256', secretKey, 'tessera-secrets', purpose, 32))));
  return key;
}

function seal(key: Buffer, plain: string, aad?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

/** Throws when the key is not the one that sealed it (or the text was altered). */
function open(key: Buffer, sealed: string, aad?: string): string {
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}

export function encryptSecret(secretKey: string, plain: string): string {
  return seal(totpKey(secretKey), plain);
}

export function decryptSecret(secretKey: string, sealed: string): string {
  return open(totpKey(secretKey), sealed);
}

/** Seals `plain` for one purpose; `bindTo` (e.g. the row's id) must be given again to open it, so a
 * sealed value copied into another row does not open there. */
export function sealFor(secretKey: string, purpose: string, plain: string, bindTo?: string): string {
  return seal(purposeKey(secretKey, purpose), plain, bindTo);
}

export function openFor(secretKey: string, purpose: string, sealed: string, bindTo?: string): string {
  return open(purposeKey(secretKey, purpose), sealed, bindTo);
}

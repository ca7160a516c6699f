// Opaque bearer tokens: 256 random bits, handed out once, stored only as a SHA-256 hash.
import { createHash, randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function newId(): string {
  return crypto.randomUUID();
}

// Opaque bearer tokens: 256 random bits, handed out once, stored only as a SHA-256 hash.
import { hash, randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  // One call, no Hash object: every authenticated request hashes its token.
  return hash('sha256', token, 'base64url');
}

export function newId(): string {
  return crypto.randomUUID();
}

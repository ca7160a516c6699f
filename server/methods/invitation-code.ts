// Invitation codes: 12 random characters of Crockford's base 32 (60 bits), shown as XXXX-XXXX-XXXX,
// kept only as a keyed hash, which is also how a typed code is looked up. Creating an invitation
// makes one; an onboarding that starts with an invitation looks it up.
import { createHmac, randomInt } from 'node:crypto';
import { INVITATION_ALPHABET, normaliseInvitationCode } from '../../contract/rules.ts';

export function newInvitationCode(): string {
  const chars = Array.from({ length: 12 }, () => INVITATION_ALPHABET[randomInt(0, INVITATION_ALPHABET.length)]);
  return [chars.slice(0, 4), chars.slice(4, 8), chars.slice(8)].map((group) => group.join('')).join('-');
}

export function invitationCodeHash(secretKey: string, code: string): string {
  return createHmac('sha256', secretKey)
    .update(`invitation:${normaliseInvitationCode(code)}`)
    .digest('base64url');
}

// Activation codes of cards: kept as a keyed hash bound to the card's number, so that neither a
// database leak nor a code seen beside another card opens a card. Compared in constant time. The
// card import stores the hash; an onboarding that starts with a card checks the code against it.
import { createHmac } from 'node:crypto';
import { normaliseActivationCode, normaliseCardNumber } from '../../contract/rules.ts';
import { sameHash } from './codes.ts';

export function activationCodeHash(secretKey: string, cardNumber: string, code: string): string {
  return createHmac('sha256', secretKey)
    .update(`card:${normaliseCardNumber(cardNumber)}:${normaliseActivationCode(code)}`)
    .digest('base64url');
}

export function activationCodeMatches(
  secretKey: string,
  card: { number: string; activation_code_hash: string | null },
  code: string,
): boolean {
  return (
    card.activation_code_hash !== null &&
    sameHash(card.activation_code_hash, activationCodeHash(secretKey, card.number, code))
  );
}

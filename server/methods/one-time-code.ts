// One-time codes Tessera sends: email, SMS, voice call and WhatsApp. The code is random, 8 digits,
// kept only as an HMAC bound to its challenge, and its message is queued in the durable outbox in
// the transaction that opens the challenge.
import type { Variant } from '../../contract/constants.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { CODE_LENGTH, isEmail, normaliseEmail } from '../../contract/rules.ts';
import type { Channel } from '../delivery/index.ts';
import { fallbackSteps } from '../delivery/fallback.ts';
import { codeMessage } from '../delivery/messages.ts';
import { hashCode, newCode, sameHash } from './codes.ts';
import { describeRow, type Activation, type ChallengeMethod, type Destination } from './method.ts';

export type CodeKind = 'email' | 'sms' | 'call' | 'whatsapp';

/** Where the code goes: an email method by mail; a phone method by the phone channel asked for, else its own. */
export function channelFor(kind: CodeKind, asked?: string): Channel {
  return (kind !== 'email' && asked && asked !== 'email' ? asked : kind) as Channel;
}

const EMAIL_ADDRESS: Destination = {
  contact: 'email',
  normalise: (raw) => (isEmail(normaliseEmail(raw)) ? normaliseEmail(raw) : null),
  invalid: 'invalid_email',
  inUse: 'email_in_use',
};

/** A phone number is read as the site's country's when it has no country code. */
const PHONE_NUMBER: Destination = {
  contact: 'phone',
  normalise: (raw, variant) => normalisePhone(raw, variant === 'lu' ? 'LU' : 'BE'),
  invalid: 'invalid_phone',
  inUse: 'phone_in_use',
};

/** Adding a destination: the first code proved it; a user may have several of a kind. */
function destinationActivation(kind: CodeKind, destination: Destination): Activation {
  return {
    destination,
    async bind(_deps, { trx, methods, first, replaced, target, addMethod, setPrimary }) {
      const same = methods.find((m) => m.method === kind && m.target === target);
      if (same) {
        // Replacing a method by one the user already has: keep that one, drop the replaced one.
        if (replaced && replaced.id !== same.id) {
          await trx.deleteFrom('mfa_methods').where('id', '=', replaced.id).execute();
          if (replaced.is_primary === 1) await setPrimary(same.id);
        }
        return { id: same.id };
      }
      if (replaced) {
        await trx.updateTable('mfa_methods').set({ target }).where('id', '=', replaced.id).execute();
        return { id: replaced.id };
      }
      return { id: await addMethod({ method: kind, target, primary: first }) };
    },
  };
}

/** The host an SMS binds its code to: the configured origin of the variant whose language the
 * message speaks (every Luxembourg locale ends in _LU), never a request's Host. Its host name only,
 * as the origin-bound line writes it. */
export function boundHost(origins: Record<Variant, string>, language: string): string {
  return new URL(origins[language.endsWith('_LU') ? 'lu' : 'be']).hostname;
}

function oneTimeCode(kind: CodeKind, destination: Destination): ChallengeMethod {
  return {
    kind,
    async start({ config, outbox }, trx, sending) {
      const code = newCode(CODE_LENGTH.email);
      const channel = channelFor(kind, sending.channel);
      const textOn = (on: Channel) =>
        codeMessage(sending.language, code, config.mfa.codeTtlSeconds, {
          purpose: sending.purpose,
          channel: on,
          ...(on === 'sms' ? { host: boundHost(config.publicOrigins, sending.language) } : {}),
        });
      await outbox.enqueue(trx, {
        channel,
        to: sending.target,
        ...textOn(channel),
        ttlSeconds: config.mfa.codeTtlSeconds,
        // If it does not arrive, the same code goes the next way (server/delivery/fallback.ts).
        sending: { challengeId: sending.challengeId, fallbacks: fallbackSteps(channel, textOn) },
      });
      return { codeHash: hashCode(config.secretKey, sending.challengeId, code) };
    },
    async verify({ config }, held, answer) {
      // The HMAC is computed even for a challenge that holds no code (an unknown account's), so the
      // check costs the same.
      const hash = hashCode(config.secretKey, held.id, answer);
      return { right: held.codeHash !== null && sameHash(held.codeHash, hash) };
    },
    describe: describeRow,
    activation: destinationActivation(kind, destination),
  };
}

export const emailCode = oneTimeCode('email', EMAIL_ADDRESS);
export const smsCode = oneTimeCode('sms', PHONE_NUMBER);
export const callCode = oneTimeCode('call', PHONE_NUMBER);
export const whatsappCode = oneTimeCode('whatsapp', PHONE_NUMBER);

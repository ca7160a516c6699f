// One-time codes Tessera sends: email, SMS, voice call and WhatsApp. The code is random, 8 digits,
// kept only as an HMAC bound to its challenge, and its message is queued in the durable outbox in
// the transaction that opens the challenge.
import { CODE_LENGTH } from '../../contract/rules.ts';
import type { Channel } from '../delivery/index.ts';
import { codeMessage } from '../delivery/messages.ts';
import { hashCode, newCode, sameHash } from './codes.ts';
import { describeRow, type ChallengeMethod } from './method.ts';

export type CodeKind = 'email' | 'sms' | 'call' | 'whatsapp';

/** Where the code goes: an email method by mail; a phone method by the phone channel asked for, else its own. */
export function channelFor(kind: CodeKind, asked?: string): Channel {
  return (kind !== 'email' && asked && asked !== 'email' ? asked : kind) as Channel;
}

function oneTimeCode(kind: CodeKind): ChallengeMethod {
  return {
    kind,
    async start({ config, outbox }, trx, sending) {
      const code = newCode(CODE_LENGTH.email);
      const channel = channelFor(kind, sending.channel);
      const text = codeMessage(sending.language, code, config.mfa.codeTtlSeconds, {
        purpose: sending.purpose,
        channel,
      });
      await outbox.enqueue(trx, { channel, to: sending.target, ...text, ttlSeconds: config.mfa.codeTtlSeconds });
      return { codeHash: hashCode(config.secretKey, sending.challengeId, code) };
    },
    async verify({ config }, held, answer) {
      // The HMAC is computed even for a challenge that holds no code (an unknown account's), so the
      // check costs the same.
      const hash = hashCode(config.secretKey, held.id, answer);
      return { right: held.codeHash !== null && sameHash(held.codeHash, hash) };
    },
    describe: describeRow,
  };
}

export const emailCode = oneTimeCode('email');
export const smsCode = oneTimeCode('sms');
export const callCode = oneTimeCode('call');
export const whatsappCode = oneTimeCode('whatsapp');

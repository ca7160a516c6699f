// The merge of a duplicated account (spec §4 "Duplicate-account merge (fuzzion)", §7 POST /fuzzion):
// an address or number being added belongs to another account. The person proves that account is
// theirs, then either merges it into the one they are signed in to, or takes the address or number
// off it (only when it keeps an email and a phone). Every call carries the offer's `payload`, the
// ticket the "already in use" answer gave.
import * as v from 'valibot';
import { text } from './baseSchemas.ts';

/** The ways to prove the other account: a code sent to the duplicated address or number, the other
 * account's password, or the number of one of its cards. */
export const FUZZION_PROOFS = ['code', 'password', 'card'] as const;
export type FuzzionProof = (typeof FUZZION_PROOFS)[number];

/** What the person means to do once the other account is proven theirs. */
export const FUZZION_INTENTS = ['merge', 'decline'] as const;
export type FuzzionIntent = (typeof FUZZION_INTENTS)[number];

const payload = text(200, 1);
const intent = v.picklist(FUZZION_INTENTS);

/** POST /fuzzion/offer: what the offer is about. */
export const FuzzionOfferRequest = v.strictObject({ payload });
export type FuzzionOfferRequest = v.InferOutput<typeof FuzzionOfferRequest>;

/** The offer: the duplicated address or number, the proofs still to give (one, or two when the
 * other account has a second factor: as many as its sign-in asks) and whether declining can take the
 * address or number off the other account (it must keep an email and a phone). */
export const FuzzionOffer = v.object({
  kind: v.picklist(['email', 'phone']),
  target: v.string(),
  proofs: v.array(v.picklist(FUZZION_PROOFS)),
  needed: v.number(),
  proven: v.array(v.picklist(FUZZION_PROOFS)),
  can_decline: v.boolean(),
});
export type FuzzionOffer = v.InferOutput<typeof FuzzionOffer>;

/** POST /fuzzion/code: sends a code to the duplicated address or number. */
export const FuzzionSendRequest = v.strictObject({ payload, channel: v.optional(v.picklist(['sms', 'call', 'whatsapp'])) });
export type FuzzionSendRequest = v.InferOutput<typeof FuzzionSendRequest>;
export const FuzzionSendAnswer = v.object({
  /** The code's challenge, sent back with the code. */
  challenge: v.string(),
  expires_at: v.string(), expires_in: v.number(), resend_at: v.optional(v.string()), resend_in: v.optional(v.number()),
});
export type FuzzionSendAnswer = v.InferOutput<typeof FuzzionSendAnswer>;

/** POST /fuzzion (the spec's call): the code. POST /fuzzion/password and /fuzzion/card: the other
 * proofs. Each says what is meant once the proofs are enough. */
export const FuzzionCodeRequest = v.strictObject({ payload, intent, challenge: text(200, 1), code: text(16, 1) });
export type FuzzionCodeRequest = v.InferOutput<typeof FuzzionCodeRequest>;
export const FuzzionPasswordRequest = v.strictObject({ payload, intent, password: text(256, 1) });
export type FuzzionPasswordRequest = v.InferOutput<typeof FuzzionPasswordRequest>;
export const FuzzionCardRequest = v.strictObject({ payload, intent, card: text(40, 1) });
export type FuzzionCardRequest = v.InferOutput<typeof FuzzionCardRequest>;

/** After a proof: more are needed (`mfa`: the proofs left, with the same payload: the spec's "extra
 * methods"), or it is done: merged (the account's emails and phones now, primary first) or the
 * duplicate taken off the other account. */
export const FuzzionAnswer = v.object({
  done: v.boolean(),
  payload: v.string(),
  mfa: v.array(v.picklist(FUZZION_PROOFS)),
  data: v.optional(v.object({
    outcome: v.picklist(['merged', 'declined']),
    emails: v.array(v.object({ value: v.string(), primary: v.boolean() })),
    phones: v.array(v.object({ value: v.string(), primary: v.boolean() })),
  })),
});
export type FuzzionAnswer = v.InferOutput<typeof FuzzionAnswer>;

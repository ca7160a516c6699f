// The merge of a duplicated account (spec §4 "Duplicate-account merge (fuzzion)", §7 POST /fuzzion,
// POST /mfa/fuzzion): an address or number being added belongs to another account. The code sent
// to it came back (POST /user/login/confirm or POST /mfa/activate), and only that answer carries
// the offer's `payload`. The person then proves the other account as its sign-in would ask, and
// either merges it into the one they are signed in to, or takes the address or number off it (only
// when it keeps an email and a phone). Every call carries the offer's `payload`.
import * as v from 'valibot';
import { MfaMethodSummary, text } from './baseSchemas.ts';
import { MfaChallengeAnswer, PasskeyCredential } from './schemas.ts';

/** What has proven the other account: the code sent to the address or number being added (always
 * first: the offer exists only after it), the other account's password, one of its second factors. */
export const FUZZION_PROOFS = ['code', 'password', 'mfa'] as const;
export type FuzzionProof = (typeof FUZZION_PROOFS)[number];

/** What the person means to do once the other account is proven theirs. */
export const FUZZION_INTENTS = ['merge', 'decline'] as const;
export type FuzzionIntent = (typeof FUZZION_INTENTS)[number];

const payload = text(200, 1);
const intent = v.picklist(FUZZION_INTENTS);

/** POST /fuzzion/offer: what the offer is about. */
export const FuzzionOfferRequest = v.strictObject({ payload });
export type FuzzionOfferRequest = v.InferOutput<typeof FuzzionOfferRequest>;

/** What is still open: `enough` once the proofs match the other account's sign-in (a first factor,
 * then one of its second factors where it has any); else the proofs that would still count: its
 * password (only where the code already stands for one of its second factors) and its second-factor
 * methods (destinations masked; a method sending to the address being added counts once, as the code). */
const Remaining = {
  enough: v.boolean(),
  password: v.boolean(),
  methods: v.array(MfaMethodSummary),
};

/** The offer: the duplicated address or number, what is proven and still open, whether declining can
 * take the address or number off the other account (it must keep an email and a phone), and whether
 * the other account signs in with Microsoft only (then nothing can be done from here). */
export const FuzzionOffer = v.object({
  kind: v.picklist(['email', 'phone']),
  target: v.string(),
  proven: v.array(v.picklist(FUZZION_PROOFS)),
  ...Remaining,
  can_decline: v.boolean(),
  sso_only: v.boolean(),
  /** Until when the offer can be taken (the session is in the merge until then, spec §6). */
  expires_at: v.string(),
});
export type FuzzionOffer = v.InferOutput<typeof FuzzionOffer>;

/** POST /mfa/fuzzion: starts one of the other account's second factors, named by its id in the
 * offer's `methods`; a code goes to that method's own destination, never to one the caller names.
 * `target` goes with a negative id (spec §3: a method named by a target), which the merge never
 * starts (docs/decisions/account-merge.md): it is read so that such a request is refused plainly. */
export const FuzzionMfaRequest = v.strictObject({
  payload,
  mfaId: v.pipe(v.number(), v.integer(), v.minValue(-(2 ** 31)), v.maxValue(2 ** 31 - 1)),
  target: v.optional(text(320, 1)),
  channel: v.optional(v.picklist(['sms', 'call', 'whatsapp'])),
});
export type FuzzionMfaRequest = v.InferOutput<typeof FuzzionMfaRequest>;
/** Its answer is the step-up's (GET /mfa/sudo): the challenge as `payload`, sent back with its answer
 * (POST /fuzzion's `challenge`), the method, its masked destination and timers. */
export const FuzzionSendAnswer = MfaChallengeAnswer;
export type FuzzionSendAnswer = v.InferOutput<typeof FuzzionSendAnswer>;

/** POST /fuzzion (the spec's call): the answer to a second factor's challenge. POST /fuzzion/password:
 * the other account's password. POST /fuzzion/finish: nothing more to prove. Each says what is meant
 * once the proofs are enough. */
export const FuzzionCodeRequest = v.strictObject({
  payload,
  intent,
  challenge: text(200, 1),
  /** A typed answer, or for a passkey its credential: one of the two. */
  code: v.optional(text(16, 1)),
  credential: v.optional(PasskeyCredential),
});
export type FuzzionCodeRequest = v.InferOutput<typeof FuzzionCodeRequest>;
export const FuzzionPasswordRequest = v.strictObject({ payload, intent, password: text(256, 1) });
export type FuzzionPasswordRequest = v.InferOutput<typeof FuzzionPasswordRequest>;
export const FuzzionFinishRequest = v.strictObject({ payload, intent });
export type FuzzionFinishRequest = v.InferOutput<typeof FuzzionFinishRequest>;

/** After a proof: more are needed (`mfa`: the other account's methods that would still count, the
 * spec's "extra methods", with the same payload), or it is done: merged (the account's emails and
 * phones now, primary first) or the duplicate taken off the other account. */
export const FuzzionAnswer = v.object({
  done: v.boolean(),
  payload: v.string(),
  mfa: v.array(MfaMethodSummary),
  password: v.boolean(),
  data: v.optional(
    v.object({
      outcome: v.picklist(['merged', 'declined']),
      emails: v.array(v.object({ value: v.string(), primary: v.boolean() })),
      phones: v.array(v.object({ value: v.string(), primary: v.boolean() })),
    }),
  ),
});
export type FuzzionAnswer = v.InferOutput<typeof FuzzionAnswer>;

/** The 409 "already in use" answer to a code (POST /user/login/confirm, POST /mfa/activate): the
 * address or number is another account's, and this is the offer to merge or decline. */
export const FuzzionTicket = v.object({
  payload: v.string(),
  kind: v.picklist(['email', 'phone']),
  target: v.string(),
});
export type FuzzionTicket = v.InferOutput<typeof FuzzionTicket>;

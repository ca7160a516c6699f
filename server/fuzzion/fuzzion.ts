// The way to a merge (spec §4 "Duplicate-account merge (fuzzion)"; docs/decisions/merge-proofs.md): an
// address or number the signed-in person adds belongs to another account. Nothing says so until the
// code sent to it comes back (POST /user/login/confirm, POST /mfa/activate): only then does the
// answer carry the offer, with that code counted as the first proof. The person then proves the
// other account as its own sign-in would ask, and nothing weaker:
//   - a first factor: the code to the address being added (already given), or its password
//     (counted against that account's sign-in limits);
//   - then, where that account has second factors, one of them, started here (POST /mfa/fuzzion)
//     and sent to its own destination. A method that sends to the address being added is the same
//     proof as the code, so it counts once: with the code alone, the second factor is another
//     method; with the password, the code stands for it. A card number counts only as the account's
//     configured method, after a first factor.
// An account that signs in with Microsoft only cannot be proven here at all. Then, as the person
// chose: the merge (merge.ts), or the address taken off the other account where it keeps an email
// and a phone.
//
// Every step checks the offer is the caller's, unspent and unexpired, and that the address still
// belongs to the account proven: no step is reachable without the ones before it, whatever the
// browser sends. The offer is spent by the step that finishes it: of racing finishes one does.
import {
  FUZZION_PROOFS,
  type FuzzionAnswer,
  type FuzzionIntent,
  type FuzzionMfaRequest,
  type FuzzionOffer,
  type FuzzionProof,
  type FuzzionSendAnswer,
} from '../../contract/fuzzion.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { contactOwner, contactTable, languageOf, rankedContacts, type ContactKind } from '../identity/accounts.ts';
import { OFFER_TICKET } from '../identity/duplicates.ts';
import { detachContact } from '../identity/contacts.ts';
import { methodsOf, summary, type MfaMethodRow } from '../identity/second-factors.ts';
import { isSsoOnly } from '../identity/sso.ts';
import { answerOf, startChallenge, verifyChallenge, type ChallengeAnswer } from '../methods/challenges.ts';
import { confirmPassword } from '../passwords/confirm.ts';
import { ticketDetail } from '../sessions/tickets.ts';
import { hashToken } from '../sessions/tokens.ts';
import { mergeAccounts } from './merge.ts';

export type Caller = { userId: string; language: string; ip: string; deviceKey: string };

/** An offer as a step finds it: the address, the account behind it, its second factors, what is proven. */
type Offer = {
  ticketHash: string;
  expiresAt: string;
  kind: ContactKind;
  target: string;
  otherId: string;
  ssoOnly: boolean;
  methods: MfaMethodRow[];
  proven: FuzzionProof[];
};

const PHONE_METHODS = new Set(['sms', 'call', 'whatsapp']);

/** The caller's live offer, or merge_unavailable: an unknown, spent, expired or someone else's
 * offer, or an address that no longer belongs to another account, all read alike. */
async function openOffer(db: Db, caller: Caller, payload: string): Promise<Offer> {
  const ticketHash = hashToken(payload);
  const ticket = await db
    .selectFrom('tickets')
    .select(['user_id', 'detail', 'expires_at'])
    .where('ticket_hash', '=', ticketHash)
    .where('kind', '=', OFFER_TICKET)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  if (!ticket || ticket.user_id !== caller.userId) throw new ApiError('merge_unavailable');
  const detail = ticketDetail(ticket);
  const kind: ContactKind = detail.kind === 'email' ? 'email' : 'phone';
  const target = String(detail.target ?? '');
  const otherId = await contactOwner(db, kind, target);
  if (!otherId || otherId === caller.userId) throw new ApiError('merge_unavailable');
  const [methods, proofs, ssoOnly] = await Promise.all([
    methodsOf(db, otherId),
    db
      .selectFrom('fuzzion_proofs')
      .select('proof')
      .where('ticket_hash', '=', ticketHash)
      .where('other_user_id', '=', otherId)
      .execute(),
    isSsoOnly(db, otherId),
  ]);
  return {
    ticketHash,
    expiresAt: ticket.expires_at,
    kind,
    target,
    otherId,
    ssoOnly,
    methods,
    proven: proofs.map((p) => p.proof).filter(isProof),
  };
}

const isProof = (proof: string): proof is FuzzionProof => (FUZZION_PROOFS as readonly string[]).includes(proof);

/** Whether a second factor sends its codes to the address or number being added. */
const sendsToTarget = (offer: Offer, method: MfaMethodRow) =>
  method.target === offer.target &&
  (offer.kind === 'email' ? method.method === 'email' : PHONE_METHODS.has(method.method));

/** What the proofs so far add up to, measured against the other account's own sign-in. */
function remaining(offer: Offer, proven: readonly FuzzionProof[] = offer.proven) {
  if (offer.ssoOnly) return { enough: false, password: false, methods: [] as MfaMethodRow[] };
  const has = (proof: FuzzionProof) => proven.includes(proof);
  const firstFactor = has('code') || has('password');
  // The code already stands for a method sending to the same address: with the password it is
  // the second factor; alone it is only the first.
  const codeIsMethod = offer.methods.some((m) => sendsToTarget(offer, m));
  const secondFactor = offer.methods.length === 0 || has('mfa') || (has('password') && has('code') && codeIsMethod);
  const enough = firstFactor && secondFactor;
  return {
    enough,
    password: !enough && !has('password') && has('code') && codeIsMethod,
    methods: enough ? [] : offer.methods.filter((m) => !sendsToTarget(offer, m)),
  };
}

/** Whether the other account keeps an email and a phone without this one (spec §5). */
async function canDecline(db: Db, offer: Offer): Promise<boolean> {
  const others = await db
    .selectFrom(contactTable(offer.kind))
    .select('id')
    .where('user_id', '=', offer.otherId)
    .where('value', '!=', offer.target)
    .limit(1)
    .execute();
  return others.length > 0;
}

/** POST /fuzzion/offer */
export async function describeOffer(ctx: AppContext, caller: Caller, payload: string): Promise<FuzzionOffer> {
  const offer = await openOffer(ctx.db, caller, payload);
  const left = remaining(offer);
  return {
    kind: offer.kind,
    target: offer.target,
    proven: offer.proven,
    enough: left.enough,
    password: left.password,
    methods: left.methods.map(summary),
    can_decline: !offer.ssoOnly && (await canDecline(ctx.db, offer)),
    sso_only: offer.ssoOnly,
    expires_at: offer.expiresAt,
  };
}

/** An offer that can still be proven: not one of an account that signs in with Microsoft only. */
async function provableOffer(db: Db, caller: Caller, payload: string): Promise<Offer> {
  const offer = await openOffer(db, caller, payload);
  if (offer.ssoOnly) throw new ApiError('merge_sso_only');
  return offer;
}

/** POST /mfa/fuzzion: starts one of the other account's second factors that still counts, through
 * the challenge store (expiry, resend wait, sending budgets), on that account as its sign-in would:
 * a code goes to the method's own destination, in that account's language. The challenge is bound
 * to the offer. */
export async function startMethod(
  ctx: AppContext,
  caller: Caller,
  input: FuzzionMfaRequest,
): Promise<FuzzionSendAnswer> {
  // A method named by a destination (a negative id with its `target`) is never started here: a
  // merge's code goes only where the other account already receives its codes.
  if (input.mfaId < 0 || input.target !== undefined) throw new ApiError('invalid_request');
  const offer = await provableOffer(ctx.db, caller, input.payload);
  const method = remaining(offer).methods.find((m) => m.id === input.mfaId);
  if (!method) throw new ApiError('not_found');
  const started = await startChallenge(ctx, {
    userId: offer.otherId,
    language: await languageOf(ctx.db, offer.otherId),
    purpose: 'merge',
    deviceKey: caller.deviceKey,
    ip: caller.ip,
    subject: { id: method.id, method: method.method, target: method.target },
    loginTicket: input.payload,
    ...(input.channel && PHONE_METHODS.has(method.method) ? { channel: input.channel } : {}),
  });
  return {
    payload: started.payload,
    method: started.method as FuzzionSendAnswer['method'],
    ...(started.target ? { target: started.target } : {}),
    expires_at: started.expires_at,
    expires_in: started.expires_in,
    ...(started.resend_at ? { resend_at: started.resend_at, resend_in: started.resend_in! } : {}),
    ...(started.passkey ? { passkey: started.passkey } : {}),
  };
}

/** POST /fuzzion: the answer to one of the other account's second factors, started for this offer.
 * Wrong answers count against that account's second-factor failures, as at its sign-in. */
export async function proveByCode(
  ctx: AppContext,
  caller: Caller,
  input: { payload: string; intent: FuzzionIntent; challenge: string } & ChallengeAnswer,
): Promise<FuzzionAnswer> {
  const offer = await provableOffer(ctx.db, caller, input.payload);
  const passed = await verifyChallenge(ctx, input.challenge, answerOf(input), {
    purposes: ['merge'],
    deviceKey: caller.deviceKey,
    ip: caller.ip,
  });
  // A challenge of another offer, another account or a method that no longer counts proves nothing here.
  const counts =
    passed.userId === offer.otherId &&
    passed.loginTicketHash === offer.ticketHash &&
    remaining(offer).methods.some((m) => m.id === passed.methodId);
  if (!counts) throw new ApiError('challenge_closed');
  return afterProof(ctx, caller, input.payload, offer, 'mfa', input.intent);
}

/** POST /fuzzion/password: the other account's password, counted against its sign-in limits. */
export async function proveByPassword(
  ctx: AppContext,
  caller: Caller,
  input: { payload: string; intent: FuzzionIntent; password: string },
): Promise<FuzzionAnswer> {
  const offer = await provableOffer(ctx.db, caller, input.payload);
  await confirmPassword(ctx, { userId: offer.otherId, ip: caller.ip, deviceKey: caller.deviceKey }, input.password, {
    code: 'invalid_credentials',
    failed: { type: 'login_failed', detail: { via: 'merge' } },
  });
  return afterProof(ctx, caller, input.payload, offer, 'password', input.intent);
}

/** POST /fuzzion/finish: the proofs are enough already (the code, for an account without a second
 * factor); does what the person chose. */
export async function finish(
  ctx: AppContext,
  caller: Caller,
  input: { payload: string; intent: FuzzionIntent },
): Promise<FuzzionAnswer> {
  const offer = await provableOffer(ctx.db, caller, input.payload);
  return afterProof(ctx, caller, input.payload, offer, null, input.intent);
}

/** Keeps the proof; when the proofs are enough, does what the person chose. */
async function afterProof(
  ctx: AppContext,
  caller: Caller,
  payload: string,
  offer: Offer,
  proof: FuzzionProof | null,
  intent: FuzzionIntent,
): Promise<FuzzionAnswer> {
  if (proof) {
    await ctx.db
      .insertInto('fuzzion_proofs')
      .values({ ticket_hash: offer.ticketHash, proof, other_user_id: offer.otherId, proven_at: nowIso() })
      .onConflict((c) => c.columns(['ticket_hash', 'proof']).doNothing())
      .execute();
  }
  const proven = !proof || offer.proven.includes(proof) ? offer.proven : [...offer.proven, proof];
  const left = remaining(offer, proven);
  if (!left.enough) {
    if (!proof) throw new ApiError('merge_proof_required');
    return { done: false, payload, mfa: left.methods.map(summary), password: left.password };
  }
  if (intent === 'decline') await takeOffOther(ctx, caller, offer);
  else await mergeOnce(ctx, caller, offer);
  return {
    done: true,
    payload,
    mfa: [],
    password: false,
    data: { outcome: intent === 'decline' ? 'declined' : 'merged', ...(await contactsOf(ctx.db, caller.userId)) },
  };
}

/** The offer's ticket, spent once its outcome is done; a finish that raced another finds it spent. */
async function spendOffer(db: Db, offer: Offer, at = nowIso()): Promise<boolean> {
  const spent = await db
    .updateTable('tickets')
    .set({ used_at: at })
    .where('ticket_hash', '=', offer.ticketHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(spent.numUpdatedRows) === 1;
}

/** The merge, for an offer spent first: of finishes racing on one offer (a merge in one tab, a
 * decline in another) exactly one does anything. A merge that fails gives the offer back. */
async function mergeOnce(ctx: AppContext, caller: Caller, offer: Offer): Promise<void> {
  const spentAt = nowIso();
  if (!(await spendOffer(ctx.db, offer, spentAt))) throw new ApiError('merge_unavailable');
  try {
    await mergeAccounts(ctx, {
      survivorId: caller.userId,
      otherId: offer.otherId,
      ip: caller.ip,
      deviceKey: caller.deviceKey,
    });
  } catch (error) {
    await ctx.db
      .updateTable('tickets')
      .set({ used_at: null })
      .where('ticket_hash', '=', offer.ticketHash)
      .where('used_at', '=', spentAt)
      .execute();
    throw error;
  }
}

/** Decline: the duplicated address leaves the other account, which must keep an email and a phone;
 * the person may then add it to this one. The offer is spent in the same transaction. */
async function takeOffOther(ctx: AppContext, caller: Caller, offer: Offer): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockUser(trx, offer.otherId))) throw new ApiError('merge_unavailable');
    // Under the lock: the address may have left that account since the offer was read.
    if ((await contactOwner(trx, offer.kind, offer.target)) !== offer.otherId) throw new ApiError('merge_unavailable');
    if (!(await canDecline(trx, offer))) throw new ApiError('decline_unavailable');
    if (!(await spendOffer(trx, offer))) throw new ApiError('merge_unavailable');
    await detachContact(trx, offer.otherId, offer.kind, offer.target);
  });
  await recordEvent(ctx.db, {
    type: `${offer.kind}_removed`,
    userId: offer.otherId,
    ip: caller.ip,
    deviceKey: caller.deviceKey,
    detail: { value: offer.target, via: 'merge' },
  });
}

/** The account's emails and phones, the primary one first. */
async function contactsOf(db: Db, userId: string) {
  const [emails, phones] = await Promise.all([
    rankedContacts(db, userId, 'email').execute(),
    rankedContacts(db, userId, 'phone').execute(),
  ]);
  const shown = (rows: Array<{ value: string; is_default: number }>) =>
    rows.map((r) => ({ value: r.value, primary: r.is_default === 1 }));
  return { emails: shown(emails), phones: shown(phones) };
}

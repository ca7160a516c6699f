// The way to a merge (spec §4 "Duplicate-account merge (fuzzion)"): an address or number the
// signed-in person adds belongs to another account, and the "already in use" answer gave them an
// offer (a `fuzzion` ticket naming the address). They prove the other account is theirs, as many
// times as its sign-in would ask (one proof, two when it has a second factor), by any of: a code
// sent to the duplicated address, the other account's password (counted against that account's
// sign-in limits), the number of one of its cards. Then, as they chose: the merge (merge.ts), or the
// address taken off the other account where it keeps an email and a phone.
//
// Every step checks the offer is the caller's, unspent and unexpired, and that the address still
// belongs to the account proven: no step is reachable without the ones before it, whatever the
// browser sends. The offer is spent by the step that finishes it: of racing finishes one does.
import type { FuzzionAnswer, FuzzionIntent, FuzzionOffer, FuzzionProof, FuzzionSendAnswer } from '../../contract/merge.ts';
import { FUZZION_PROOFS } from '../../contract/merge.ts';
import type { AppContext } from '../context.ts';
import { nowIso, type Db } from '../db/index.ts';
import { lockUser } from '../db/locks.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { contactOwner, type ContactKind } from '../identity/accounts.ts';
import { detachContact } from '../identity/contacts.ts';
import { methodsOf } from '../identity/second-factors.ts';
import { startChallenge, verifyChallenge } from '../methods/challenges.ts';
import { cardNumber } from '../methods/card-number.ts';
import { confirmPassword } from '../passwords/confirm.ts';
import { spend, standing } from '../ratelimit/index.ts';
import { ticketDetail } from '../sessions/tickets.ts';
import { hashToken } from '../sessions/tokens.ts';
import { mergeAccounts } from './merge.ts';

export type Caller = { userId: string; language: string; ip: string; deviceKey: string };

/** An offer as a step finds it: the address, the account behind it, what is proven so far. */
type Offer = { ticketHash: string; kind: ContactKind; target: string; otherId: string; needed: number; proven: FuzzionProof[] };

const OFFER_TICKET = 'fuzzion';

/** The caller's live offer, or merge_unavailable: an unknown, spent, expired or someone else's
 * offer, or an address that no longer belongs to another account, all read alike. */
async function openOffer(db: Db, caller: Caller, payload: string): Promise<Offer> {
  const ticketHash = hashToken(payload);
  const ticket = await db.selectFrom('tickets').select(['user_id', 'detail'])
    .where('ticket_hash', '=', ticketHash).where('kind', '=', OFFER_TICKET)
    .where('used_at', 'is', null).where('expires_at', '>', nowIso()).executeTakeFirst();
  if (!ticket || ticket.user_id !== caller.userId) throw new ApiError('merge_unavailable');
  const detail = ticketDetail(ticket);
  // Contacts name the kind (email, phone); a second factor's activation names its method.
  const kind: ContactKind = detail.method === 'email' ? 'email' : 'phone';
  const target = String(detail.target ?? '');
  const otherId = await contactOwner(db, kind, target);
  if (!otherId || otherId === caller.userId) throw new ApiError('merge_unavailable');
  const [methods, proofs] = await Promise.all([
    methodsOf(db, otherId),
    db.selectFrom('fuzzion_proofs').select('proof').where('ticket_hash', '=', ticketHash).where('other_user_id', '=', otherId).execute(),
  ]);
  return { ticketHash, kind, target, otherId, needed: methods.length > 0 ? 2 : 1, proven: proofs.map((p) => p.proof) };
}

/** Whether the other account keeps an email and a phone without this one (spec §5). */
async function canDecline(db: Db, offer: Offer): Promise<boolean> {
  const table = offer.kind === 'email' ? 'user_emails' : 'user_phones';
  const others = await db.selectFrom(table).select('id').where('user_id', '=', offer.otherId).where('value', '!=', offer.target).limit(1).execute();
  return others.length > 0;
}

/** POST /fuzzion/offer */
export async function describeOffer(ctx: AppContext, caller: Caller, payload: string): Promise<FuzzionOffer> {
  const offer = await openOffer(ctx.db, caller, payload);
  return {
    kind: offer.kind, target: offer.target, proofs: left(offer), needed: offer.needed, proven: offer.proven,
    can_decline: await canDecline(ctx.db, offer),
  };
}

const left = (offer: Offer): FuzzionProof[] => FUZZION_PROOFS.filter((p) => !offer.proven.includes(p));

/** POST /fuzzion/code: a code to the duplicated address or number, through the challenge store
 * (its expiry, resend wait and sending budgets). Wrong answers count against the caller's account. */
export async function sendCode(ctx: AppContext, caller: Caller, payload: string, channel?: 'sms' | 'call' | 'whatsapp'): Promise<FuzzionSendAnswer> {
  const offer = await openOffer(ctx.db, caller, payload);
  const started = await startChallenge(ctx, {
    userId: caller.userId, language: caller.language, purpose: 'merge', deviceKey: caller.deviceKey, ip: caller.ip,
    subject: { id: null, method: offer.kind === 'email' ? 'email' : 'sms', target: offer.target },
    ...(offer.kind === 'phone' && channel ? { channel } : {}),
  });
  return {
    challenge: started.payload, expires_at: started.expires_at, expires_in: started.expires_in,
    ...(started.resend_at ? { resend_at: started.resend_at, resend_in: started.resend_in! } : {}),
  };
}

/** POST /fuzzion: the code sent to the duplicated address. */
export async function proveByCode(ctx: AppContext, caller: Caller, input: { payload: string; intent: FuzzionIntent; challenge: string; code: string }): Promise<FuzzionAnswer> {
  const offer = await openOffer(ctx.db, caller, input.payload);
  const passed = await verifyChallenge(ctx, input.challenge, input.code, { purposes: ['merge'], deviceKey: caller.deviceKey, ip: caller.ip });
  // A code of this caller for another address proves nothing about this one.
  if (passed.userId !== caller.userId || passed.target !== offer.target) throw new ApiError('challenge_closed');
  return afterProof(ctx, caller, input.payload, offer, 'code', input.intent);
}

/** POST /fuzzion/password: the other account's password, counted against its sign-in limits. */
export async function proveByPassword(ctx: AppContext, caller: Caller, input: { payload: string; intent: FuzzionIntent; password: string }): Promise<FuzzionAnswer> {
  const offer = await openOffer(ctx.db, caller, input.payload);
  await confirmPassword(ctx, { userId: offer.otherId, ip: caller.ip, deviceKey: caller.deviceKey }, input.password,
    { code: 'invalid_credentials', failed: { type: 'login_failed', detail: { via: 'merge' } } });
  return afterProof(ctx, caller, input.payload, offer, 'password', input.intent);
}

/** POST /fuzzion/card: the number of one of the other account's cards. Wrong numbers count as wrong
 * second-factor answers of the caller's account, which blocks the guessing after a few. */
export async function proveByCard(ctx: AppContext, caller: Caller, input: { payload: string; intent: FuzzionIntent; card: string }): Promise<FuzzionAnswer> {
  const offer = await openOffer(ctx.db, caller, input.payload);
  const { wait: blocked } = await standing(ctx.limiters.mfaFailures, caller.userId);
  if (blocked > 0) throw ApiError.tooMany(blocked);
  const { right } = await cardNumber.verify(ctx, { id: '', userId: offer.otherId, codeHash: null, methodId: null, secret: null, lastStep: null }, input.card);
  if (!right) {
    const wait = await spend(ctx.limiters.mfaFailures, caller.userId);
    if (wait > 0) throw ApiError.tooMany(wait);
    throw new ApiError('invalid_card_number');
  }
  return afterProof(ctx, caller, input.payload, offer, 'card', input.intent);
}

/** Keeps the proof; when there are enough, does what the person chose. */
async function afterProof(ctx: AppContext, caller: Caller, payload: string, offer: Offer, proof: FuzzionProof, intent: FuzzionIntent): Promise<FuzzionAnswer> {
  await ctx.db.insertInto('fuzzion_proofs').values({ ticket_hash: offer.ticketHash, proof, other_user_id: offer.otherId, proven_at: nowIso() })
    .onConflict((c) => c.columns(['ticket_hash', 'proof']).doNothing()).execute();
  const proven = offer.proven.includes(proof) ? offer.proven : [...offer.proven, proof];
  if (proven.length < offer.needed) return { done: false, payload, mfa: left({ ...offer, proven }) };
  if (intent === 'decline') await takeOffOther(ctx, caller, offer);
  else await mergeOnce(ctx, caller, offer);
  return { done: true, payload, mfa: [], data: { outcome: intent === 'decline' ? 'declined' : 'merged', ...(await contactsOf(ctx.db, caller.userId)) } };
}

/** The offer's ticket, spent once its outcome is done; a finish that raced another finds it spent. */
async function spendOffer(db: Db, offer: Offer, at = nowIso()): Promise<boolean> {
  const spent = await db.updateTable('tickets').set({ used_at: at })
    .where('ticket_hash', '=', offer.ticketHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(spent.numUpdatedRows) === 1;
}

/** The merge, for an offer spent first: of finishes racing on one offer (a merge in one tab, a
 * decline in another) exactly one does anything. A merge that fails gives the offer back. */
async function mergeOnce(ctx: AppContext, caller: Caller, offer: Offer): Promise<void> {
  const spentAt = nowIso();
  if (!(await spendOffer(ctx.db, offer, spentAt))) throw new ApiError('merge_unavailable');
  try {
    await mergeAccounts(ctx, { survivorId: caller.userId, otherId: offer.otherId, ip: caller.ip, deviceKey: caller.deviceKey });
  } catch (error) {
    await ctx.db.updateTable('tickets').set({ used_at: null }).where('ticket_hash', '=', offer.ticketHash).where('used_at', '=', spentAt).execute();
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
  await recordEvent(ctx.db, { type: `${offer.kind}_removed`, userId: offer.otherId, ip: caller.ip, deviceKey: caller.deviceKey, detail: { value: offer.target, via: 'merge' } });
}

/** The account's emails and phones, the primary one first. */
async function contactsOf(db: Db, userId: string) {
  const [emails, phones] = await Promise.all(['user_emails' as const, 'user_phones' as const].map((table) =>
    db.selectFrom(table).select(['value', 'is_default']).where('user_id', '=', userId).orderBy('is_default', 'desc').orderBy('created_at').execute()));
  const shown = (rows: Array<{ value: string; is_default: number }>) => rows.map((r) => ({ value: r.value, primary: r.is_default === 1 }));
  return { emails: shown(emails!), phones: shown(phones!) };
}

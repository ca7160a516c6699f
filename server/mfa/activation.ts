// Adding a second factor (GET /mfa/{id}/activate, POST /mfa/activate): a negative id names the
// kind to add (-1 email, -2 sms, -3 authenticator, -4 call, -5 whatsapp) and the target comes with
// the request; a positive id names a method the user has, which `edit` replaces (a new target, or
// a new authenticator secret with new recovery keys). The method exists only once its first code
// proved the destination (or the authenticator's set-up).
// What differs from one method to another (its destination and how it is checked, a set-up such as
// the authenticator's secret, how the proven method is written) is the method's activation, in
// server/methods/: a kind can be activated when its method has one. The steps here are shared.
import { NEW_METHOD_IDS, type Variant } from '../../contract/constants.ts';
import type { MfaActivateQuery, MfaMethodKind } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { lockUser } from '../db/locks.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { addVerifiedContact } from '../identity/accounts.ts';
import { addMethod, methodsOf, setPrimary } from '../identity/second-factors.ts';
import { spend } from '../ratelimit/index.ts';
import { hasRecentMfa } from '../sessions/stepup.ts';
import { markMfa } from '../sessions/store.ts';
import { offerAfterCode } from '../identity/duplicates.ts';
import { answerOf, startChallenge, verifyChallenge, type ChallengeAnswer } from '../methods/challenges.ts';
import { activationOf } from '../methods/index.ts';
import { PasskeyTaken } from '../methods/passkey.ts';
import type { PasskeyOptions } from '../../contract/schemas.ts';

/** The kind a negative id names (NEW_METHOD_IDS). */
const kindOfNewId = (id: number) =>
  (Object.entries(NEW_METHOD_IDS) as Array<[MfaMethodKind, number]>).find(([, value]) => value === id)?.[0];

type Caller = {
  userId: string;
  mfaAt: string | null;
  signedInAt: string;
  language: string;
  variant: Variant;
  deviceKey: string;
  ip: string;
  /** The session asking: only it may finish the activation. */
  sessionId: string;
};

export type ActivationAnswer = {
  payload: string;
  fuzzion: boolean;
  data: {
    method?: MfaMethodKind;
    target?: string;
    expires_at?: string;
    expires_in?: number;
    resend_at?: string;
    resend_in?: number;
    secret?: string;
    otpauth_url?: string;
    qr_svg?: string;
    passkey?: PasskeyOptions;
    code?: string;
    message?: string;
  };
};

/** Starts adding (or replacing) a method; null means there is nothing to do (the spec's 204). */
export async function startActivation(
  ctx: AppContext,
  caller: Caller,
  id: number,
  query: MfaActivateQuery,
): Promise<ActivationAnswer | null> {
  const { userId } = caller;
  const existing = await methodsOf(ctx.db, userId);
  // Adding a factor is a sensitive change: an account with one steps up with it; a first factor
  // needs the password proven within the step-up window, by the sign-in itself or typed again
  // (docs/decisions/step-up-password.md). So a stolen old session cannot put its thief's phone on the account.
  const recent =
    hasRecentMfa(caller.mfaAt, ctx.config) || (existing.length === 0 && hasRecentMfa(caller.signedInAt, ctx.config));
  if (!recent) throw new ApiError('step_up_required');
  const current = id > 0 ? existing.find((m) => m.id === id) : undefined;
  const kind = id < 0 ? kindOfNewId(id) : (current?.method as MfaMethodKind | undefined);
  const activation = kind ? activationOf(kind) : undefined;
  if (!kind || !activation) throw new ApiError('not_found');
  const edit = query.edit === 'true';
  const replaces = edit
    ? (current ?? (activation.single ? existing.find((m) => m.method === kind) : undefined))
    : undefined;
  // One per account: there is one, and it is not being replaced.
  if (activation.single && !replaces && existing.some((m) => m.method === kind)) return null;

  const { destination } = activation;
  let target: string | null = null;
  if (destination) {
    const raw = query.target ?? (current && !edit ? current.target : null) ?? '';
    target = destination.normalise(raw, caller.variant);
    if (!target) throw new ApiError(destination.invalid);
    if (existing.some((m) => m.method === kind && m.target === target)) return null;

    // Codes are sent on the account's behalf: they are counted. Whether another account holds the
    // target is not said here, whoever asks: only the code's answer leads to the merge.
    const wait = await spend(ctx.limiters.targetLookups, userId);
    if (wait > 0) throw ApiError.tooMany(wait);
    if (query['dry-run'] === 'true') return { payload: '', fuzzion: false, data: { method: kind, target } };
  }
  const setUp = await activation.setUp?.(ctx, userId);
  const started = await startChallenge(ctx, {
    userId,
    language: caller.language,
    purpose: 'activate',
    deviceKey: caller.deviceKey,
    ip: caller.ip,
    sessionId: caller.sessionId,
    subject: {
      id: null,
      method: kind,
      target,
      ...(setUp ? { secret: setUp.secret } : {}),
      replaces: replaces?.id ?? null,
    },
    ...(destination && query.channel ? { channel: query.channel } : {}),
  });
  return {
    payload: started.payload,
    fuzzion: false,
    data: {
      method: kind,
      ...(started.target ? { target: started.target } : {}),
      expires_at: started.expires_at,
      expires_in: started.expires_in,
      ...(started.resend_at ? { resend_at: started.resend_at, resend_in: started.resend_in! } : {}),
      ...(started.passkey ? { passkey: started.passkey } : {}),
      ...setUp?.shown,
    },
  };
}

/** The destination went to another account between the code and the change. */
class TakenMeanwhile extends Error {}

export type ActivationResult = { id: number; method: MfaMethodKind; recovery_keys?: string[] };

/** Finishes an activation with its first code: the method is added (or replaced), its destination
 * joins the user's verified contacts, and the session counts as freshly checked. */
export async function confirmActivation(
  ctx: AppContext,
  caller: Omit<Caller, 'mfaAt' | 'signedInAt' | 'language' | 'variant' | 'log'> & { sessionId: string },
  payload: string,
  answer: ChallengeAnswer,
): Promise<ActivationResult> {
  const { userId } = caller;
  const passed = await verifyChallenge(ctx, payload, answerOf(answer), {
    purposes: ['activate'],
    deviceKey: caller.deviceKey,
    ip: caller.ip,
    sessionId: caller.sessionId,
  });
  const activation = passed.newMethod ? activationOf(passed.newMethod) : undefined;
  if (passed.userId !== userId || !passed.newMethod || !activation) throw new ApiError('challenge_closed');
  const kind = passed.newMethod as MfaMethodKind;
  const { destination } = activation;
  // A destination another account holds: "already in use", with the offer to merge (the code
  // proved the destination, and is the offer's first proof).
  const offerIfTaken = async () => {
    if (!destination) return;
    const offer = await offerAfterCode(ctx, caller, destination.contact, passed.target!);
    if (offer) throw new ApiError(destination.inUse, { fuzzion: offer });
  };
  await offerIfTaken();
  const result = await ctx.db
    .transaction()
    .execute(async (trx): Promise<ActivationResult> => {
      // The account's methods as the change will find them: two set-ups, or a set-up and a
      // deletion, one after the other.
      await lockUser(trx, userId);
      const methods = await methodsOf(trx, userId);
      const first = !methods.some((m) => m.method !== 'totpRecovery');
      const replaced =
        passed.replacesMethodId === null
          ? undefined
          : methods.find((m) => m.id === passed.replacesMethodId && m.method === kind);
      // The method to replace went away meanwhile.
      if (passed.replacesMethodId !== null && !replaced) throw new ApiError('not_found');

      // The verified destination joins the user's contacts (unique across accounts: a race loses here).
      if (destination && !(await addVerifiedContact(trx, userId, destination.contact, passed.target!))) {
        throw new TakenMeanwhile();
      }
      const bound = await activation.bind(ctx, {
        trx,
        userId,
        methods,
        first,
        replaced,
        target: passed.target,
        step: passed.step,
        credential: passed.credential ?? null,
        addMethod: (input) => addMethod(trx, { userId, ...input }),
        setPrimary: (id) => setPrimary(trx, userId, id),
      });
      return { id: bound.id, method: kind, ...(bound.recoveryKeys ? { recovery_keys: bound.recoveryKeys } : {}) };
    })
    .catch(async (error: unknown) => {
      // A passkey another account registered meanwhile: refused as any failed registration is.
      if (error instanceof PasskeyTaken) throw new ApiError('passkey_refused', { attempts_left: 0 });
      if (!(error instanceof TakenMeanwhile) || !destination) throw error;
      await offerIfTaken();
      throw new ApiError(destination.inUse);
    });
  await markMfa(ctx.db, caller.sessionId, passed.amr ?? null);
  ctx.outbox.kick();
  await recordEvent(ctx.db, {
    type: passed.replacesMethodId !== null ? 'mfa_method_replaced' : 'mfa_method_added',
    userId,
    ip: caller.ip,
    deviceKey: caller.deviceKey,
    detail: { method: kind, id: result.id },
  });
  return result;
}

// Adding a second factor (GET /mfa/{id}/activate, POST /mfa/activate): a negative id names the
// kind to add (-1 email, -2 sms, -3 authenticator, -4 call, -5 whatsapp) and the target comes with
// the request; a positive id names a method the user has, which `edit` replaces (a new target, or
// a new authenticator secret with new recovery keys). The method exists only once its first code
// proved the destination (or the authenticator's set-up).
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { NEW_METHOD_IDS, type Variant } from '../../contract/constants.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { isEmail, normaliseEmail } from '../../contract/rules.ts';
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
import { startChallenge, verifyChallenge } from '../methods/challenges.ts';
import { issueRecoveryKeys } from '../methods/recovery-key.ts';
import { encryptSecret } from '../methods/secrets.ts';

const ACTIVATABLE = new Set(['email', 'sms', 'call', 'whatsapp', 'totp']);
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
  // (DESIGN.md, "Decisions"). So a stolen old session cannot put its thief's phone on the account.
  const recent =
    hasRecentMfa(caller.mfaAt, ctx.config) || (existing.length === 0 && hasRecentMfa(caller.signedInAt, ctx.config));
  if (!recent) throw new ApiError('step_up_required');
  const current = id > 0 ? existing.find((m) => m.id === id) : undefined;
  const kind = id < 0 ? kindOfNewId(id) : (current?.method as MfaMethodKind | undefined);
  if (!kind || !ACTIVATABLE.has(kind)) throw new ApiError('not_found');
  const edit = query.edit === 'true';
  const replaces = edit
    ? (current ?? (kind === 'totp' ? existing.find((m) => m.method === 'totp') : undefined))
    : undefined;

  if (kind === 'totp') {
    if (!replaces && existing.some((m) => m.method === 'totp')) return null;
    const secret = new Secret({ size: 20 });
    const otpauth = new TOTP({
      issuer: 'Tessera',
      label: await accountLabel(ctx, userId),
      secret,
      digits: 6,
      period: 30,
    }).toString();
    const started = await startChallenge(ctx, {
      userId,
      language: caller.language,
      purpose: 'activate',
      deviceKey: caller.deviceKey,
      ip: caller.ip,
      subject: {
        id: null,
        method: 'totp',
        target: null,
        secret: encryptSecret(ctx.config.secretKey, secret.base32),
        replaces: replaces?.id ?? null,
      },
    });
    // The QR code is drawn here, so the browser needs no QR library.
    const qr = await QRCode.toString(otpauth, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
    return {
      payload: started.payload,
      fuzzion: false,
      data: {
        method: 'totp',
        expires_at: started.expires_at,
        expires_in: started.expires_in,
        secret: secret.base32,
        otpauth_url: otpauth,
        qr_svg: qr,
      },
    };
  }

  const raw = query.target ?? (current && !edit ? current.target : null) ?? '';
  const target =
    kind === 'email'
      ? isEmail(normaliseEmail(raw))
        ? normaliseEmail(raw)
        : null
      : normalisePhone(raw, caller.variant === 'lu' ? 'LU' : 'BE');
  if (!target) throw new ApiError(kind === 'email' ? 'invalid_email' : 'invalid_phone');
  if (existing.some((m) => m.method === kind && m.target === target)) return null;

  // Codes are sent on the account's behalf: they are counted. Whether another account holds the
  // target is not said here, whoever asks: only the code's answer leads to the merge.
  const wait = await spend(ctx.limiters.targetLookups, userId);
  if (wait > 0) throw ApiError.tooMany(wait);
  if (query['dry-run'] === 'true') return { payload: '', fuzzion: false, data: { method: kind, target } };
  const started = await startChallenge(ctx, {
    userId,
    language: caller.language,
    purpose: 'activate',
    deviceKey: caller.deviceKey,
    ip: caller.ip,
    subject: { id: null, method: kind, target, replaces: replaces?.id ?? null },
    ...(query.channel ? { channel: query.channel } : {}),
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
    },
  };
}

/** What the authenticator app shows beside the code: the account's main email (or phone). */
async function accountLabel(ctx: AppContext, userId: string): Promise<string> {
  const email = await ctx.db
    .selectFrom('user_emails')
    .select('value')
    .where('user_id', '=', userId)
    .orderBy('is_default', 'desc')
    .executeTakeFirst();
  if (email) return email.value;
  const phone = await ctx.db
    .selectFrom('user_phones')
    .select('value')
    .where('user_id', '=', userId)
    .orderBy('is_default', 'desc')
    .executeTakeFirst();
  return phone?.value ?? 'account';
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
  code: string,
): Promise<ActivationResult> {
  const { userId } = caller;
  const passed = await verifyChallenge(ctx, payload, code, {
    purposes: ['activate'],
    deviceKey: caller.deviceKey,
    ip: caller.ip,
  });
  if (passed.userId !== userId || !passed.newMethod) throw new ApiError('challenge_closed');
  const kind = passed.newMethod as MfaMethodKind;
  // A destination another account holds: "already in use", with the offer to merge (the code
  // proved the destination, and is the offer's first proof).
  const contactKind = kind === 'email' ? ('email' as const) : ('phone' as const);
  const offerIfTaken = async () => {
    const offer = kind === 'totp' ? null : await offerAfterCode(ctx, userId, contactKind, passed.target!);
    if (offer) throw new ApiError(contactKind === 'email' ? 'email_in_use' : 'phone_in_use', { fuzzion: offer });
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

      if (kind === 'totp') {
        let id: number;
        if (replaced) {
          // The old secret stops working at once; the new one starts past the step that proved it.
          await trx
            .updateTable('mfa_methods')
            .set({ secret: passed.target, last_step: passed.step })
            .where('id', '=', replaced.id)
            .execute();
          id = replaced.id;
        } else {
          // Two set-ups raced: the first one counts.
          if (methods.some((m) => m.method === 'totp')) throw new ApiError('challenge_closed');
          id = await addMethod(trx, {
            userId,
            method: 'totp',
            secret: passed.target,
            primary: first,
            lastStep: passed.step,
          });
        }
        if (!methods.some((m) => m.method === 'totpRecovery')) await addMethod(trx, { userId, method: 'totpRecovery' });
        return { id, method: 'totp', recovery_keys: await issueRecoveryKeys(ctx, trx, userId) };
      }

      // The verified destination joins the user's contacts (unique across accounts: a race loses here).
      const target = passed.target!;
      if (!(await addVerifiedContact(trx, userId, contactKind, target))) throw new TakenMeanwhile();

      const same = methods.find((m) => m.method === kind && m.target === target);
      if (same) {
        // Replacing a method by one the user already has: keep that one, drop the replaced one.
        if (replaced && replaced.id !== same.id) {
          await trx.deleteFrom('mfa_methods').where('id', '=', replaced.id).execute();
          if (replaced.is_primary === 1) await setPrimary(trx, userId, same.id);
        }
        return { id: same.id, method: kind };
      }
      if (replaced) {
        await trx.updateTable('mfa_methods').set({ target }).where('id', '=', replaced.id).execute();
        return { id: replaced.id, method: kind };
      }
      return { id: await addMethod(trx, { userId, method: kind, target, primary: first }), method: kind };
    })
    .catch(async (error: unknown) => {
      if (!(error instanceof TakenMeanwhile)) throw error;
      await offerIfTaken();
      throw new ApiError(contactKind === 'email' ? 'email_in_use' : 'phone_in_use');
    });
  await markMfa(ctx.db, caller.sessionId);
  await recordEvent(ctx.db, {
    type: passed.replacesMethodId !== null ? 'mfa_method_replaced' : 'mfa_method_added',
    userId,
    ip: caller.ip,
    deviceKey: caller.deviceKey,
    detail: { method: kind, id: result.id },
  });
  return result;
}

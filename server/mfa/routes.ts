// The MFA calls of spec §7: list, status, challenges (send and verify a code), primary switch,
// deletion, recovery keys, and adding a method (activate).
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { NEW_METHOD_IDS } from '../../contract/constants.ts';
import { ERROR_MESSAGES } from '../../contract/errors.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { isEmail, normaliseEmail } from '../../contract/rules.ts';
import {
  MfaActivateAnswer, MfaActivateQuery, MfaActivateRequest, MfaActivateResult, MfaChallengeAnswer, MfaChallengeQuery, MfaMethodList,
  MfaStatus, MfaVerifyAnswer, MfaVerifyRequest, RecoveryKeysAnswer,
} from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import { requireSession, tokenOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { completeSignIn } from '../sessions/signIn.ts';
import { findSession, markMfa } from '../sessions/store.ts';
import { issueTicket, peekTicket } from '../sessions/tickets.ts';
import { newId } from '../sessions/tokens.ts';
import { startChallenge, verifyChallenge, type ChallengeSubject } from './challenges.ts';
import { addMethod, methodOf, methodsOf, summary } from './methods.ts';
import { issueRecoveryKeys } from './recovery.ts';
import { encryptSecret } from './secrets.ts';
import { hasRecentMfa, requireRecentMfa } from './stepup.ts';

const idParam = { type: 'object', properties: { id: { type: 'string', pattern: '^-?\\d{1,10}$' } }, required: ['id'], additionalProperties: false };

export async function mfaRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);
  // What a session limited to enrolment may do: see its methods and add the first one.
  const enrolling = requireSession(ctx.db, ctx.cookieName, { enrolment: true });
  const recentMfa = requireRecentMfa(ctx.config);
  const languageOf = async (userId: string) =>
    (await ctx.db.selectFrom('users').select('language').where('id', '=', userId).executeTakeFirstOrThrow()).language;

  app.get('/mfa', {
    schema: { tags: ['mfa'], summary: 'The signed-in user\'s second factors', response: responses({ 200: MfaMethodList }, [400, 401, 403, 503]) },
    preHandler: enrolling,
  }, async (request) => ({ data: (await methodsOf(ctx.db, request.session!.userId)).map(summary) }));


  app.get('/mfa/status', {
    schema: { tags: ['mfa'], summary: 'Whether this session passed MFA recently', response: responses({ 200: MfaStatus }, [400, 401, 403, 503]) },
    preHandler: enrolling,
  }, async (request) => {
    const methods = await methodsOf(ctx.db, request.session!.userId);
    // need_card: the card is the only way this account can pass a second factor.
    const needCard = methods.length > 0 && methods.every((m) => m.method === 'card');
    return { sudo: hasRecentMfa(request.session!.mfaAt, ctx.config), single: methods.length === 1, need_card: needCard };
  });

  app.get<{ Querystring: MfaChallengeQuery }>('/mfa/sudo', {
    schema: {
      tags: ['mfa'], summary: 'Start a challenge on one method: deliver a code (or expect an authenticator code or recovery key)',
      querystring: jsonSchema(MfaChallengeQuery), response: responses({ 200: MfaChallengeAnswer }, [400, 401, 404, 429, 503]),
    },
  }, async (request) => {
    const { mfaId, payload, channel } = request.query;
    // With a login payload the challenge completes a sign-in; without, it is a step-up of this session.
    let userId: string | null;
    if (payload) {
      userId = await peekTicket(ctx.db, payload, 'mfa_login');
    } else {
      const token = tokenOf(request, ctx.cookieName);
      userId = token ? (await findSession(ctx.db, token))?.userId ?? null : null;
    }
    if (!userId) throw new ApiError('unauthorized');
    const method = await methodOf(ctx.db, userId, Number(mfaId));
    if (!method) throw new ApiError('not_found');
    return startChallenge(ctx, {
      userId, language: await languageOf(userId), subject: method, purpose: payload ? 'login' : 'sudo', deviceKey: request.deviceKey,
      ...(channel ? { channel } : {}), ...(payload ? { loginTicket: payload } : {}), log: request.log,
    });
  });

  app.post<{ Body: MfaVerifyRequest }>('/mfa/sudo', {
    schema: {
      tags: ['mfa'], summary: 'Verify a code; completes a sign-in (access_token) or refreshes this session\'s MFA check',
      body: jsonSchema(MfaVerifyRequest), response: responses({ 200: MfaVerifyAnswer }, [400, 401, 410, 422, 429, 503]),
    },
  }, async (request, reply) => {
    const passed = await verifyChallenge(ctx, request.body.payload, request.body.code);
    if (passed.purpose === 'activate' || passed.purpose === 'reset') throw new ApiError('challenge_closed');
    const left = passed.recoveryKeysLeft !== undefined ? { recovery_keys_left: passed.recoveryKeysLeft } : {};
    if (passed.purpose === 'login') {
      // The sign-in's ticket is spent with it: one password check, one session.
      const spent = await ctx.db.updateTable('tickets').set({ used_at: nowIso() })
        .where('ticket_hash', '=', passed.loginTicketHash ?? '').where('kind', '=', 'mfa_login')
        .where('used_at', 'is', null).where('expires_at', '>', nowIso()).executeTakeFirst();
      if (Number(spent.numUpdatedRows) === 0) throw new ApiError('unauthorized');
      const signedIn = await completeSignIn(ctx, request, reply, {
        userId: passed.userId, clientId: null, viaMfa: true, trustDevice: request.body.isTrustedDevice === true,
      });
      return { ...signedIn, ...left };
    }
    const token = tokenOf(request, ctx.cookieName);
    const session = token ? await findSession(ctx.db, token) : null;
    if (!session || session.userId !== passed.userId) throw new ApiError('unauthorized');
    await markMfa(ctx.db, session.sessionId);
    return left;
  });

  app.post<{ Params: { id: string } }>('/mfa/switch-primary/:id', {
    schema: { tags: ['mfa'], summary: 'Make a method the primary one', params: idParam, response: responses({ 204: null }, [400, 401, 403, 404, 503]) },
    preHandler: [signedIn, recentMfa],
  }, async (request, reply) => {
    const userId = request.session!.userId;
    const method = await methodOf(ctx.db, userId, Number(request.params.id));
    if (!method || method.method === 'totpRecovery') throw new ApiError('not_found');
    await ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('mfa_methods').set({ is_primary: 0 }).where('user_id', '=', userId).execute();
      await trx.updateTable('mfa_methods').set({ is_primary: 1 }).where('id', '=', method.id).execute();
    });
    return reply.code(204).send();
  });

  app.delete<{ Params: { id: string } }>('/mfa/:id', {
    schema: { tags: ['mfa'], summary: 'Remove a method', params: idParam, response: responses({ 204: null }, [400, 401, 403, 404, 409, 503]) },
    preHandler: [signedIn, recentMfa],
  }, async (request, reply) => {
    const userId = request.session!.userId;
    const methods = await methodsOf(ctx.db, userId);
    const method = methods.find((m) => m.id === Number(request.params.id));
    if (!method || method.method === 'totpRecovery') throw new ApiError('not_found');
    // The last email or SMS method stays: it is how the account is recovered.
    const coded = (m: { method: string }) => m.method === 'email' || m.method === 'sms';
    if (coded(method) && methods.filter(coded).length === 1) throw new ApiError('last_method');
    await ctx.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('mfa_methods').where('id', '=', method.id).execute();
      if (method.method === 'totp') {
        await trx.deleteFrom('mfa_methods').where('user_id', '=', userId).where('method', '=', 'totpRecovery').execute();
        await trx.deleteFrom('recovery_keys').where('user_id', '=', userId).execute();
      }
      // Deleting the primary makes the backup (the oldest remaining code method) primary.
      if (method.is_primary === 1) {
        const backup = methods.find((m) => m.id !== method.id && coded(m));
        if (backup) await trx.updateTable('mfa_methods').set({ is_primary: 1 }).where('id', '=', backup.id).execute();
      }
    });
    return reply.code(204).send();
  });

  app.post('/mfa/regenerate-recovery', {
    schema: { tags: ['mfa'], summary: 'New recovery keys; the old ones stop working', response: responses({ 200: RecoveryKeysAnswer }, [400, 401, 403, 404, 503]) },
    preHandler: [signedIn, recentMfa],
  }, async (request) => {
    const userId = request.session!.userId;
    if (!(await methodsOf(ctx.db, userId)).some((m) => m.method === 'totp')) throw new ApiError('not_found');
    return { recovery_keys: await issueRecoveryKeys(ctx, ctx.db, userId) };
  });

  app.get<{ Params: { id: string }; Querystring: MfaActivateQuery }>('/mfa/:id/activate', {
    schema: {
      tags: ['mfa'], summary: 'Start adding a method (negative id: -1 email, -2 sms, -3 authenticator); 204 when there is nothing to do',
      params: idParam, querystring: jsonSchema(MfaActivateQuery), response: responses({ 200: MfaActivateAnswer, 204: null }, [400, 401, 403, 404, 429, 503]),
    },
    preHandler: enrolling,
  }, async (request, reply) => {
    const userId = request.session!.userId;
    const existing = await methodsOf(ctx.db, userId);
    // Adding a factor to an account that has one is a sensitive change; a first factor (forced enrolment) is not.
    if (existing.length > 0 && !hasRecentMfa(request.session!.mfaAt, ctx.config)) throw new ApiError('step_up_required');
    const id = Number(request.params.id);
    const kind = id === NEW_METHOD_IDS.email ? 'email' : id === NEW_METHOD_IDS.sms ? 'sms' : id === NEW_METHOD_IDS.totp ? 'totp'
      : existing.find((m) => m.id === id)?.method;
    if (!kind || !['email', 'sms', 'totp'].includes(kind)) throw new ApiError('not_found');
    const dryRun = request.query['dry-run'] === 'true';

    if (kind === 'totp') {
      if (existing.some((m) => m.method === 'totp')) return reply.code(204).send();
      const secret = new Secret({ size: 20 });
      const otpauth = new TOTP({ issuer: 'Tessera', label: userId.slice(0, 8), secret, digits: 6, period: 30 }).toString();
      const started = await startChallenge(ctx, {
        userId, language: await languageOf(userId), purpose: 'activate', deviceKey: request.deviceKey, log: request.log,
        subject: { id: null, method: 'totp', target: null, secret: encryptSecret(ctx.config.secretKey, secret.base32) },
      });
      // The QR code is drawn here, so the browser needs no QR library.
      const qr = await QRCode.toString(otpauth, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      return { payload: started.payload, fuzzion: false, data: { method: 'totp' as const, expires_at: started.expires_at, secret: secret.base32, otpauth_url: otpauth, qr_svg: qr } };
    }

    const raw = request.query.target ?? existing.find((m) => m.id === id)?.target ?? '';
    const target = kind === 'email' ? (isEmail(normaliseEmail(raw)) ? normaliseEmail(raw) : null) : normalisePhone(raw, 'BE');
    if (!target) throw new ApiError(kind === 'email' ? 'invalid_email' : 'invalid_phone');
    if (existing.some((m) => m.method === kind && m.target === target)) return reply.code(204).send();

    // A target that belongs to another account leads to the merge (fuzzion) instead of a code.
    const table = kind === 'email' ? 'user_emails' : 'user_phones';
    const owner = await ctx.db.selectFrom(table).select('user_id').where('value', '=', target).executeTakeFirst();
    if (owner && owner.user_id !== userId) {
      const payload = await issueTicket(ctx.db, userId, 'fuzzion', ctx.config.mfa.codeTtlSeconds);
      const code = kind === 'email' ? 'email_in_use' : 'phone_in_use';
      return { payload, fuzzion: true, data: { code, message: ERROR_MESSAGES[code] } };
    }
    if (dryRun) return { payload: '', fuzzion: false, data: { method: kind as 'email' } };
    const started = await startChallenge(ctx, {
      userId, language: await languageOf(userId), purpose: 'activate', deviceKey: request.deviceKey, log: request.log,
      subject: { id: null, method: kind, target } satisfies ChallengeSubject,
      ...(request.query.channel ? { channel: request.query.channel } : {}),
    });
    return { payload: started.payload, fuzzion: false, data: { method: kind as 'email', target: started.target, expires_at: started.expires_at, resend_at: started.resend_at } };
  });

  app.post<{ Body: MfaActivateRequest }>('/mfa/activate', {
    schema: {
      tags: ['mfa'], summary: 'Finish adding a method with its first code', body: jsonSchema(MfaActivateRequest),
      response: responses({ 200: MfaActivateResult }, [400, 401, 403, 409, 410, 422, 503]),
    },
    preHandler: enrolling,
  }, async (request) => {
    const userId = request.session!.userId;
    const passed = await verifyChallenge(ctx, request.body.payload, request.body.code);
    if (passed.purpose !== 'activate' || passed.userId !== userId || !passed.newMethod) throw new ApiError('challenge_closed');
    const now = nowIso();
    const kind = passed.newMethod;
    const result = await ctx.db.transaction().execute(async (trx) => {
      const hadAny = (await trx.selectFrom('mfa_methods').select('id').where('user_id', '=', userId).limit(1).execute()).length > 0;
      if (kind === 'totp') {
        const id = await addMethod(trx, { userId, method: 'totp', secret: passed.target, primary: !hadAny });
        await addMethod(trx, { userId, method: 'totpRecovery' });
        return { id, method: 'totp' as const };
      }
      // The verified destination joins the user's contacts (unique across accounts: a race loses here).
      const table = kind === 'email' ? 'user_emails' : 'user_phones';
      const known = await trx.selectFrom(table).select(['id', 'user_id']).where('value', '=', passed.target!).executeTakeFirst();
      if (known && known.user_id !== userId) throw new ApiError(kind === 'email' ? 'email_in_use' : 'phone_in_use');
      if (known) await trx.updateTable(table).set({ verified: 1 }).where('id', '=', known.id).execute();
      else await trx.insertInto(table).values({ id: newId(), user_id: userId, value: passed.target!, is_default: 0, verified: 1, created_at: now }).execute();
      const id = await addMethod(trx, { userId, method: kind, target: passed.target, primary: !hadAny });
      return { id, method: kind as 'email' };
    });
    await markMfa(ctx.db, request.session!.sessionId);
    if (kind === 'totp') return { ...result, recovery_keys: await issueRecoveryKeys(ctx, ctx.db, userId) };
    return result;
  });
}

// GET /user: the signed-in user's profile; PUT /user: the personal information; PUT /user/iban:
// the bank account (a sensitive change: a recent second factor first); POST /user/password: the
// password; the picture, the emails and phones, and the undo of a change to them.
import type { FastifyInstance } from 'fastify';
import {
  AddContactAnswer,
  AddContactRequest,
  ConfirmContactRequest,
  ContactRequest,
  IbanRequest,
  ProfileInfoRequest,
  UndoChangeAnswer,
  UndoChangeRequest,
} from '../../contract/profile.ts';
import { undoChange } from './undo.ts';
import type { FastifyRequest } from 'fastify';
import { confirmContact, contactOf, deleteContact, makePrimary, startAddingContact, type Caller } from './contacts.ts';
import { languageOf } from '../identity/accounts.ts';
import { ChangePasswordAnswer, ChangePasswordRequest, UserAnswer } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import { requireSession, tokenOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { publicOriginOf } from '../http/origin.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { authCookieOptions } from '../sessions/cookie.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';
import { changePassword } from './password.ts';
import { saveIban, saveInfo } from './edit.ts';
import { pictureTypeOf, stripMetadata } from '../http/images.ts';
import { pictureOf, removePicture, savePicture } from './picture-store.ts';
import { recordEvent } from '../events/record.ts';

/** The largest picture taken (the browser sends it shrunk, far smaller). */
const PICTURE_MAX_BYTES = 5 * 1024 * 1024;
import { profileOfToken } from './queries.ts';

export async function profileRoutes(app: FastifyInstance, ctx: AppContext) {
  const signedIn = requireSession(ctx.db, ctx.cookieName);

  /** The profile of the request's token, with its session; unauthorized without a live one. */
  const profileOf = async (request: FastifyRequest) => {
    const token = tokenOf(request, ctx.cookieName);
    const found = token ? await profileOfToken(ctx.db, token) : null;
    if (!found) throw new ApiError('unauthorized');
    return found;
  };
  /** The profile as it is now, for the answer of a change. */
  const currentProfile = async (request: FastifyRequest) => ({ data: (await profileOf(request)).profile });

  // Any live session may read it, one limited to setting up a second factor too. The session and
  // the account come in one statement (the call that runs most), not through requireSession.
  app.get(
    '/user',
    {
      schema: {
        tags: ['profile'],
        summary: 'The signed-in user',
        response: responses({ 200: UserAnswer }, [400, 401, 503]),
      },
    },
    async (request) => {
      const found = await profileOf(request);
      request.session = found.session;
      return { data: found.profile };
    },
  );

  app.put<{ Body: ProfileInfoRequest }>(
    '/user',
    {
      schema: {
        tags: ['profile'],
        summary: 'Change the personal information: names, birth date, gender, language',
        body: jsonSchema(ProfileInfoRequest),
        response: responses({ 200: UserAnswer }, [400, 401, 403, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      await saveInfo(ctx, request.session!.userId, request.body, { ip: request.ip, deviceKey: request.deviceKey });
      return currentProfile(request);
    },
  );

  app.put<{ Body: IbanRequest }>(
    '/user/iban',
    {
      schema: {
        tags: ['profile'],
        summary: 'Change the bank account (IBAN and its country); the primary email and phone are told',
        body: jsonSchema(IbanRequest),
        response: responses({ 200: UserAnswer }, [400, 401, 403, 422, 503]),
      },
      preHandler: [signedIn, requireRecentMfa(ctx.config)],
    },
    async (request) => {
      await saveIban(ctx, request.session!.userId, request.body, { ip: request.ip, deviceKey: request.deviceKey });
      return currentProfile(request);
    },
  );

  // The profile picture: its own body limit and parser (raw image bytes), in a scope of its own.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      ['image/jpeg', 'image/png', 'image/webp'],
      { parseAs: 'buffer', bodyLimit: PICTURE_MAX_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.put<{ Body: Buffer }>(
      '/user/picture',
      {
        schema: {
          tags: ['profile'],
          summary: 'Set the profile picture (JPEG, PNG or WebP, at most 5 MB; its metadata is removed)',
          response: responses({ 200: UserAnswer }, [400, 401, 413, 415, 503]),
        },
        preHandler: signedIn,
      },
      async (request) => {
        const bytes = new Uint8Array(request.body);
        const type = pictureTypeOf(bytes);
        const clean = type && stripMetadata(bytes, type);
        if (!type || !clean) throw new ApiError('invalid_picture');
        const userId = request.session!.userId;
        await savePicture(ctx.db, userId, type, clean);
        await recordEvent(ctx.db, { type: 'picture_changed', userId, ip: request.ip, deviceKey: request.deviceKey });
        return currentProfile(request);
      },
    );
  });

  app.get(
    '/user/picture',
    {
      schema: {
        tags: ['profile'],
        summary: 'The profile picture, as stored (an <img> loads it: no device id header needed)',
        response: responses({}, [400, 401, 404, 503]),
      },
      config: { withoutDeviceId: true },
      preHandler: signedIn,
    },
    async (request, reply) => {
      const picture = await pictureOf(ctx.db, request.session!.userId);
      if (!picture) throw new ApiError('not_found');
      // Only ever shown as an image, never run as anything else (and, as every API answer, not kept).
      return reply
        .type(picture.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(picture.bytes);
    },
  );

  app.delete(
    '/user/picture',
    {
      schema: {
        tags: ['profile'],
        summary: 'Remove the profile picture',
        response: responses({ 200: UserAnswer }, [400, 401, 503]),
      },
      preHandler: signedIn,
    },
    async (request) => {
      await removePicture(ctx.db, request.session!.userId);
      return currentProfile(request);
    },
  );

  // The emails and phone numbers (spec §7 "the login-update calls"): each change asks a recent second factor.
  const sensitive = [signedIn, requireRecentMfa(ctx.config)];
  const callerOf = async (request: FastifyRequest): Promise<Caller> => {
    const { variant, origin } = publicOriginOf(ctx.config, request);
    return {
      userId: request.session!.userId,
      sessionId: request.session!.sessionId,
      language: await languageOf(ctx.db, request.session!.userId),
      variant,
      deviceKey: request.deviceKey,
      ip: request.ip,
      origin,
    };
  };
  const contactErrors = [400, 401, 403, 404, 409, 410, 422, 429, 503];

  app.post<{ Body: AddContactRequest }>(
    '/user/login',
    {
      schema: {
        tags: ['profile'],
        summary:
          'Add an email or a phone number: a code goes to it (409 with a merge payload when another account has it)',
        body: jsonSchema(AddContactRequest),
        response: responses({ 200: AddContactAnswer }, contactErrors),
      },
      preHandler: sensitive,
    },
    async (request) => {
      const { channel, ...typed } = request.body;
      return startAddingContact(
        ctx,
        await callerOf(request),
        contactOf(typed, publicOriginOf(ctx.config, request).variant),
        channel,
      );
    },
  );

  app.post<{ Body: ConfirmContactRequest }>(
    '/user/login/confirm',
    {
      schema: {
        tags: ['profile'],
        summary: 'The code the new email or phone number received: it joins the account, verified',
        body: jsonSchema(ConfirmContactRequest),
        response: responses({ 200: UserAnswer }, contactErrors),
      },
      preHandler: sensitive,
    },
    async (request) => {
      await confirmContact(ctx, await callerOf(request), request.body.payload, request.body.code);
      return currentProfile(request);
    },
  );

  // What is done to one email or phone the account has: the same request, the same answer.
  for (const [method, url, summary, change] of [
    [
      'DELETE',
      '/user/login',
      "Delete an email or a phone number (not the last of its kind, not the primary, not the last email or SMS second factor's)",
      deleteContact,
    ],
    [
      'POST',
      '/user/login/primary',
      'Make an email or a phone number the primary one (a verified one a second factor sends to)',
      makePrimary,
    ],
  ] as const) {
    app.route<{ Body: ContactRequest }>({
      method,
      url,
      schema: {
        tags: ['profile'],
        summary,
        body: jsonSchema(ContactRequest),
        response: responses({ 200: UserAnswer }, contactErrors),
      },
      preHandler: sensitive,
      handler: async (request) => {
        await change(
          ctx,
          await callerOf(request),
          contactOf(request.body, publicOriginOf(ctx.config, request).variant),
        );
        return currentProfile(request);
      },
    });
  }

  // "This wasn't me": anyone holding a change notice's link may undo that change (the link is the proof).
  app.post<{ Body: UndoChangeRequest }>(
    '/account/undo',
    {
      schema: {
        tags: ['profile'],
        summary:
          "Undo a change to the emails or phones from its notice's link: every session ends and the password must be chosen anew",
        body: jsonSchema(UndoChangeRequest),
        response: responses({ 200: UndoChangeAnswer }, [400, 410, 503]),
      },
    },
    async (request) => ({
      undone: await undoChange(ctx, request.body.token, { ip: request.ip, deviceKey: request.deviceKey }),
    }),
  );

  app.post<{ Body: ChangePasswordRequest }>(
    '/user/password',
    {
      schema: {
        tags: ['profile'],
        summary: 'Change the password: the current one, a new one; every other session ends (this one too unless kept)',
        body: jsonSchema(ChangePasswordRequest),
        response: responses({ 200: ChangePasswordAnswer }, [400, 401, 403, 422, 429, 503]),
      },
      preHandler: [signedIn, requireRecentMfa(ctx.config)],
    },
    async (request, reply) => {
      const session = request.session!;
      const answer = await changePassword(
        ctx,
        { userId: session.userId, sessionId: session.sessionId, ip: request.ip, deviceKey: request.deviceKey },
        request.body,
      );
      if (answer.session_ended) {
        const { maxAge: _drop, ...options } = authCookieOptions(ctx.config, request.host);
        reply.clearCookie(ctx.cookieName, options);
      }
      return answer;
    },
  );
}

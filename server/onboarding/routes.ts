// Onboarding (spec §2, §4, §5): start with a card or an invitation (behind the CAPTCHA), then the
// terms, the details, the email and phone with their codes, and the password that creates the
// account. Each call after the start carries the flow's token, and the flow refuses calls out of order.
import { publicOriginOf } from '../http/origin.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  OnboardingCardRequest,
  OnboardingCodeSent,
  OnboardingDone,
  OnboardingEmailRequest,
  OnboardingInvitationRequest,
  OnboardingPasswordRequest,
  OnboardingPhoneRequest,
  OnboardingProfileRequest,
  OnboardingStarted,
  OnboardingState,
  OnboardingStateRequest,
  OnboardingTermsRequest,
  OnboardingVerified,
  OnboardingVerifyRequest,
} from '../../contract/schemas.ts';
import { VARIANT_LOCALES, variantLocaleOf } from '../../contract/constants.ts';
import { assertCaptcha } from '../captcha/index.ts';
import { findByLoginName } from '../identity/accounts.ts';
import { signInWithPassword } from '../identity/signInDecision.ts';
import type { AppContext } from '../context.ts';
import { jsonSchema, responses } from '../http/schema.ts';
import { assertConfirmed } from '../passwords/policy.ts';
import { createAccount } from './account.ts';
import { openFlow } from './flows.ts';
import { startWithCard, startWithInvitation } from './start.ts';
import { flowState } from './state.ts';
import { acceptTerms, contactOf, saveProfile, sendCode, verifyCode } from './steps.ts';

const tags = ['onboarding'];
const FLOW_ERRORS = [400, 409, 410, 429, 503];

export async function onboardingRoutes(app: FastifyInstance, ctx: AppContext) {
  const start = (request: FastifyRequest) => ({ variant: publicOriginOf(ctx.config, request).variant, ip: request.ip });

  app.post<{ Body: OnboardingCardRequest }>(
    '/onboarding/card',
    {
      schema: {
        tags,
        summary: 'Start with a card: its number and activation code',
        body: jsonSchema(OnboardingCardRequest),
        response: responses({ 201: OnboardingStarted }, [400, 409, 429, 503]),
      },
    },
    async (request, reply) => {
      const started = await startWithCard(ctx, {
        ...start(request),
        cardNumber: request.body.cardNumber,
        activationCode: request.body.activationCode,
        language: request.body.language,
        captcha: request.body.captcha,
      });
      return reply.code(201).send(started);
    },
  );

  app.post<{ Body: OnboardingInvitationRequest }>(
    '/onboarding/invitation',
    {
      schema: {
        tags,
        summary: 'Start with the code of an invitation email',
        body: jsonSchema(OnboardingInvitationRequest),
        response: responses({ 201: OnboardingStarted }, [400, 429, 503]),
      },
    },
    async (request, reply) => {
      await assertCaptcha(ctx, request.body.captcha);
      const started = await startWithInvitation(ctx, {
        ...start(request),
        code: request.body.code,
        language: request.body.language,
      });
      return reply.code(201).send(started);
    },
  );

  // A reload reads what the flow holds; the token is 256 random bits, so, as the other calls that
  // carry it, this one is not throttled.
  app.post<{ Body: OnboardingStateRequest }>(
    '/onboarding/state',
    {
      schema: {
        tags,
        summary: 'What the flow holds so far, for a reload to show the step reached',
        body: jsonSchema(OnboardingStateRequest),
        response: responses({ 200: OnboardingState }, [400, 410, 503]),
      },
    },
    async (request) => flowState(ctx, await openFlow(ctx, request.body.flow)),
  );

  app.post<{ Body: OnboardingTermsRequest }>(
    '/onboarding/terms',
    {
      schema: {
        tags,
        summary: 'Accept the terms and the privacy policy (required) and choose marketing preferences',
        body: jsonSchema(OnboardingTermsRequest),
        response: responses({ 204: null }, FLOW_ERRORS),
      },
    },
    async (request, reply) => {
      const { flow, ...terms } = request.body;
      await acceptTerms(ctx, await openFlow(ctx, flow), terms);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: OnboardingProfileRequest }>(
    '/onboarding/profile',
    {
      schema: {
        tags,
        summary: "The new account's name and language",
        body: jsonSchema(OnboardingProfileRequest),
        response: responses({ 204: null }, FLOW_ERRORS),
      },
    },
    async (request, reply) => {
      const { flow, ...profile } = request.body;
      await saveProfile(ctx, await openFlow(ctx, flow), profile);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: OnboardingEmailRequest }>(
    '/onboarding/email',
    {
      schema: {
        tags,
        summary: 'The email to sign in with: a code goes to it, unless it is proven already (also: send a new code)',
        body: jsonSchema(OnboardingEmailRequest),
        response: responses({ 200: OnboardingCodeSent }, FLOW_ERRORS),
      },
    },
    async (request) => {
      const flow = await openFlow(ctx, request.body.flow);
      return sendCode(
        ctx,
        flow,
        contactOf('email', request.body.email, publicOriginOf(ctx.config, request).variant),
        request.ip,
      );
    },
  );

  app.post<{ Body: OnboardingPhoneRequest }>(
    '/onboarding/phone',
    {
      schema: {
        tags,
        summary: 'The phone number: a code goes to it by SMS, call or WhatsApp, unless it is proven already',
        body: jsonSchema(OnboardingPhoneRequest),
        response: responses({ 200: OnboardingCodeSent }, FLOW_ERRORS),
      },
    },
    async (request) => {
      const flow = await openFlow(ctx, request.body.flow);
      return sendCode(
        ctx,
        flow,
        contactOf('phone', request.body.phone, publicOriginOf(ctx.config, request).variant, request.body.channel),
        request.ip,
      );
    },
  );

  app.post<{ Body: OnboardingVerifyRequest }>(
    '/onboarding/verify',
    {
      schema: {
        tags,
        summary: 'The code sent to the email or the phone',
        body: jsonSchema(OnboardingVerifyRequest),
        response: responses({ 200: OnboardingVerified }, [400, 409, 410, 422, 429, 503]),
      },
    },
    async (request) => verifyCode(ctx, await openFlow(ctx, request.body.flow), request.body.code),
  );

  app.post<{ Body: OnboardingPasswordRequest }>(
    '/onboarding/password',
    {
      schema: {
        tags,
        summary:
          'The password: creates the account, activates the card, and signs the account in as a password sign-in does',
        body: jsonSchema(OnboardingPasswordRequest),
        response: responses({ 201: OnboardingDone }, [400, 409, 410, 422, 503]),
      },
    },
    async (request, reply) => {
      const { flow, password, confirmation } = request.body;
      assertConfirmed(password, confirmation);
      const { variant } = publicOriginOf(ctx.config, request);
      // The language the person reads, as this variant offers it, else the variant's own.
      const language = variantLocaleOf(request.body.language, variant) ?? VARIANT_LOCALES[variant].default;
      const { userId, ...done } = await createAccount(
        ctx,
        await openFlow(ctx, flow),
        { password, language },
        { ip: request.ip, deviceKey: request.deviceKey },
      );
      // The new account signs in as any password sign-in does: read as the sign-in reads it, then
      // the one decision (a forced second factor's set-up, a second factor due, or the session).
      const account = await findByLoginName(ctx.db, 'email', done.username);
      if (account?.userId !== userId) throw new Error('the new account is not found by its email');
      const signIn = await signInWithPassword(ctx, request, reply, account, undefined);
      return reply.code(201).send({ ...done, signIn });
    },
  );
}

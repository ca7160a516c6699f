// Every failure leaves the API as `{ code, message }` with the status of its code: never a 500
// for bad input, never a stack trace.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { messageOf, statusOf, type ErrorCode } from '../../contract/errors.ts';
import { isDatabaseUnavailable } from '../db/index.ts';

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(messageOf(code));
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
  get status(): number {
    return statusOf(this.code);
  }
  /** A throttle said no: the wait goes in the body and in Retry-After, so clients need not parse. */
  static tooMany(seconds: number): ApiError {
    return new ApiError('too_many_attempts', { retry_after: seconds }, { 'retry-after': String(seconds) });
  }
  /** A new code was asked for before the previous one may be replaced. */
  static resendTooSoon(seconds: number): ApiError {
    return new ApiError('resend_too_soon', { retry_after: seconds }, { 'retry-after': String(seconds) });
  }
}

export function sendError(reply: FastifyReply, code: ErrorCode, extra: Record<string, unknown> = {}) {
  return reply
    .code(statusOf(code))
    .type('application/json')
    .send({ code, message: messageOf(code), ...extra });
}

/** Fastify's own error codes for bodies it could not take, mapped to ours. */
const FRAMEWORK_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

/** Fastify's `frameworkErrors`: a URL its router cannot take (bad percent-encoding, a parameter
 * past its length) gets our error body too, not Fastify's own. */
export function frameworkError(_error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  return sendError(reply, 'invalid_request');
}

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      return sendError(reply, error.code, error.extra);
    }
    if (error.validation) {
      const fields = error.validation.map((issue) => ({
        field: String(
          issue.instancePath ||
            (issue.params as { missingProperty?: string; additionalProperty?: string })?.missingProperty ||
            (issue.params as { additionalProperty?: string })?.additionalProperty ||
            error.validationContext ||
            '',
        ).replace(/^\//, ''),
        code: issue.keyword,
      }));
      return sendError(reply, 'validation_failed', { fields });
    }
    const mapped = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (mapped) return sendError(reply, mapped);
    if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
      return sendError(reply, 'invalid_json');
    }
    if (error.statusCode === 429) return sendError(reply, 'too_many_attempts');
    // The database went away: a retry will do once it is back (the pool reconnects by itself).
    if (isDatabaseUnavailable(error) || isDatabaseUnavailable(error.cause)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendError(reply, 'database_unavailable');
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode === 404 ? 'not_found' : 'invalid_request');
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'internal_error');
  });
}

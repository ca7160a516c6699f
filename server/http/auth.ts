// Reading who is calling: the device id header on every API call, the session token from a bearer
// header or the auth cookie.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_ID_HEADER } from '../../contract/constants.ts';
import { isDeviceId } from '../../contract/rules.ts';
import type { Db } from '../db/index.ts';
import { findSession, type SessionInfo } from '../sessions/store.ts';
import { ApiError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    deviceKey: string;
    session: SessionInfo | null;
  }
  interface FastifyContextConfig {
    /** The browser loads this call by itself (an <img>), so it cannot add the device id header:
     * the call goes without one (it reads, and the device id is never a security boundary). */
    withoutDeviceId?: true;
    /** A GET that changes something (the spec's code sends): its Idempotency-Key is honoured as a
     * POST's is (server/http/idempotency.ts). */
    changes?: true;
  }
}

export function deviceKeyOf(request: FastifyRequest): string {
  const value = request.headers[DEVICE_ID_HEADER];
  if (!isDeviceId(value)) {
    if (request.routeOptions.config?.withoutDeviceId) return '';
    throw new ApiError('device_id_required');
  }
  return value;
}

/** The shape of a session token (sessions/tokens.ts makes them): anything else is no token. */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{16,256}$/;
export const isSessionToken = (value: string | null | undefined): value is string =>
  !!value && SESSION_TOKEN.test(value);

export function tokenOf(request: FastifyRequest, cookieName: string): string | null {
  const header = request.headers.authorization;
  if (header) {
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : null;
    return isSessionToken(token) ? token : null;
  }
  const cookie = request.cookies?.[cookieName];
  return isSessionToken(cookie) ? cookie : null;
}

/** preHandler for calls that need a signed-in user. A session limited to setting up a second
 * factor (a forced user who has none) only passes where `enrolment` allows it. */
export function requireSession(db: Db, cookieName: string, options: { enrolment?: boolean } = {}) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const token = tokenOf(request, cookieName);
    const session = token ? await findSession(db, token) : null;
    if (!session) throw new ApiError('unauthorized');
    if (session.scope === 'enrolment' && !options.enrolment) throw new ApiError('mfa_enrolment_required');
    request.session = session;
  };
}

// Step-up: sensitive changes need an MFA check on this session within the configured window. The
// session holds when its last check was, so this lives with it: MFA, devices and the other flows ask it.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/index.ts';
import { ApiError } from '../http/errors.ts';

export function hasRecentMfa(mfaAt: string | null, config: Pick<Config, 'mfa'>, now = Date.now()): boolean {
  return mfaAt !== null && now - Date.parse(mfaAt) <= config.mfa.stepUpSeconds * 1000;
}

/** preHandler, after requireSession, for the APIs behind mfa-edit, edit-recovery, edit-password, edit-credentials, link-success. */
export function requireRecentMfa(config: Pick<Config, 'mfa'>) {
  return async (request: FastifyRequest) => {
    if (!request.session || !hasRecentMfa(request.session.mfaAt, config)) throw new ApiError('step_up_required');
  };
}

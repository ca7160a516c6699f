// What the MFA calls share: who may call them (a full session, a session limited to enrolment, a
// recent second factor) and the method id in the path.
import type { AppContext } from '../context.ts';
import { requireSession } from '../http/auth.ts';
import { requireRecentMfa } from '../sessions/stepup.ts';

export type MfaGuards = ReturnType<typeof mfaGuards>;

export function mfaGuards(ctx: AppContext) {
  return {
    signedIn: requireSession(ctx.db, ctx.cookieName),
    // What a session limited to enrolment may do: see its methods and add the first one.
    enrolling: requireSession(ctx.db, ctx.cookieName, { enrolment: true }),
    recentMfa: requireRecentMfa(ctx.config),
  };
}

export const idParam = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^-?\\d{1,10}$' } },
  required: ['id'],
  additionalProperties: false,
};

// Where a right second-factor code leads (spec §4 "MFA", "After a successful code, in this order").
// One decision for every code screen, sign-in and step-up alike: the root asks it once, when the
// code entry ends, and follows the answer. The order is the spec's and is the point of this file.
import type { ProofKind } from './mfaCode.ts';
import { HOME_PATH, pathOf, safeTarget } from './routes.ts';

export type AfterCodeFacts = {
  /** The method the code was typed for (or the password, where the account has none), and its id. */
  method: ProofKind;
  mfaId: number;
  /** The code screen's query: redirect, action, targetMfaId, weakPassword. */
  search: string;
  /** A partner application this sign-in goes back to (session storage `partner_token`'s redirect), if any. */
  partnerRedirect: string | null;
  /** The code completes a sign-in (it has a login payload), rather than a step-up. */
  signIn: boolean;
  /** The target URL stored before the sign-in, if any. */
  target: string | null;
};

export type AfterCode =
  | { kind: 'totpRecovery'; to: string }
  | { kind: 'partner'; url: string }
  | { kind: 'weakPassword'; to: string }
  | { kind: 'target'; to: string }
  | { kind: 'redirect'; to: string }
  | { kind: 'back'; steps: 2 };

/** The query that travels on: the screen behind the code needs to know which action and method it was for. */
const CARRIED = ['action', 'targetMfaId'] as const;

function withQuery(path: string, values: Record<string, string | null>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) query.set(key, value);
  const text = query.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

export function afterCode(facts: AfterCodeFacts): AfterCode {
  const query = new URLSearchParams(facts.search);
  const carried = Object.fromEntries(CARRIED.map((key) => [key, query.get(key)]));
  // Only a screen of ours is a redirect: anything else is ignored, never followed.
  const redirect = safeTarget(query.get('redirect'));
  // 1. A recovery key was used: the recovery screen, with the authenticator's id and where to go on.
  if (facts.method === 'totpRecovery') {
    return {
      kind: 'totpRecovery',
      to: withQuery(pathOf('totpRecovery', 'keys'), { mfaId: String(facts.mfaId), redirect, ...carried }),
    };
  }
  // 2. A partner application waits for this sign-in.
  if (facts.partnerRedirect) return { kind: 'partner', url: facts.partnerRedirect };
  // 3. The password must be renewed, now that the person proved who they are.
  if (query.get('weakPassword') === 'true')
    return { kind: 'weakPassword', to: withQuery(pathOf('weakPassword', 'renew'), { verified: 'true' }) };
  // 4. A sign-in goes where the person was going before it.
  if (facts.signIn) return { kind: 'target', to: safeTarget(facts.target) ?? HOME_PATH };
  // 5. A step-up returns to the screen that asked for it.
  if (redirect) return { kind: 'redirect', to: withQuery(redirect, carried) };
  // 6. Nothing says where: back to before the code was asked for.
  return { kind: 'back', steps: 2 };
}

/** Where the recovery screen goes on when the person skips it (spec §4 "TOTP recovery"): the redirect
 * it carries, the target URL, or home. */
export function afterRecovery(search: string, target: string | null): string {
  const query = new URLSearchParams(search);
  const redirect = safeTarget(query.get('redirect'));
  if (redirect) return withQuery(redirect, Object.fromEntries(CARRIED.map((key) => [key, query.get(key)])));
  return safeTarget(target) ?? HOME_PATH;
}

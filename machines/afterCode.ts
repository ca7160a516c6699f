// Where a right second-factor code leads (spec §4 "MFA", "After a successful code, in this order").
// One decision for every code screen, sign-in and step-up alike: the root asks it once, when the
// code entry ends, and follows the answer. The order is the spec's and is the point of this file.
import type { ProofKind } from './mfa.ts';
import { HOME_PATH, isAuthorisationReturn, pathOf, safeTarget, type Location } from './routes.ts';

export type AfterCodeFacts = {
  /** The method the code was typed for (or the password, where the account has none), and its id. */
  method: ProofKind;
  mfaId: number;
  /** The code screen's query: redirect, action, targetMfaId, weakPassword. */
  search: string;
  /** A partner application this sign-in goes back to (its authorisation request, the kept target), if any. */
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

/** The query of a step-up's code screen: back to the sensitive screen afterwards, with the action and
 * method it was opened for. */
export function stepUpSearch(location: Location): string {
  const asked = new URLSearchParams(location.search);
  // The screen's own query goes with the way back (a partner's redirect_uri); the action and the
  // method travel beside it, as the spec's code screen carries them.
  const own = new URLSearchParams(asked);
  for (const key of CARRIED) own.delete(key);
  const back = own.size > 0 ? `${location.path}?${own.toString()}` : location.path;
  const query = new URLSearchParams({ single: 'true', redirect: back });
  for (const key of CARRIED) {
    const value = asked.get(key);
    if (value) query.set(key, value);
  }
  return `?${query.toString()}`;
}

/** Where a step-up's code is asked for: the methods, with the way back to the sensitive screen. */
export const stepUpPath = (location: Location) => `${pathOf('mfa', 'methods')}${stepUpSearch(location)}`;

/** signIn: a sign-in's code; stepUp: a sensitive screen's; authorisation: the one an application's
 * request asked for (its way back is in the code screen's own query). */
export type CodePurpose = 'signIn' | 'stepUp' | 'authorisation';

/** Where a right code leads, from the root's context. During a step-up the location is still the
 * sensitive screen: its code screen's query is rebuilt from it. */
export function decisionAfterCode(
  context: { location: Location; target: string | null; partnerLogin: boolean },
  output: { method: ProofKind; mfaId: number },
  purpose: CodePurpose,
): AfterCode {
  return afterCode({
    method: output.method,
    mfaId: output.mfaId,
    search: purpose === 'stepUp' ? stepUpSearch(context.location) : context.location.search,
    // A partner's sign-in goes back to its request (rule 2), but not before a weak password is
    // renewed: that sign-in opens no session until then, so the request would only ask again.
    partnerRedirect:
      context.partnerLogin &&
      isAuthorisationReturn(context.target) &&
      new URLSearchParams(context.location.search).get('weakPassword') !== 'true'
        ? context.target
        : null,
    signIn: purpose === 'signIn',
    target: context.target,
  });
}

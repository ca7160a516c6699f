// The root machine's shared actions: the route guard applied to the current location, and
// forgetting a signed-out session.
import { rootSetup, type RootEvent } from './setup.ts';
import { HOME_PATH, LOGIN_PATH, allowedRedirect, guard, type SessionState } from '../routes.ts';

/** Applies the route guard (spec §4) to the current location. */
export const applyGuard = (session: SessionState) => rootSetup.enqueueActions(({ context, enqueue }) => {
  const signedIn = session === 'signedIn';
  // A sign-in kept from before a reload still waits for its second factor or its new password.
  const decision = guard(context.location, session === 'anonymous' && (context.mfa || context.weakPayload) ? 'secondFactor' : session);
  if (decision.kind === 'redirect') {
    enqueue({ type: 'navigate', params: { to: decision.to } });
  } else if (decision.kind === 'login') {
    enqueue.assign({ target: decision.target });
    enqueue({ type: 'persistTarget', params: { target: decision.target } });
    enqueue({ type: 'navigate', params: { to: LOGIN_PATH } });
  } else if (decision.kind === 'logout') {
    enqueue.raise({ type: 'ROUTE', location: context.location });
  } else {
    enqueue({ type: 'trackPageView', params: { path: context.location.path } });
    const away = signedIn && context.location.path === HOME_PATH
      ? allowedRedirect(context.location.search, context.config?.redirectTargets ?? []) : null;
    if (away) enqueue({ type: 'leaveTo', params: { url: away } });
  }
});

/** Forgets everything about the signed-out user: local copy and session storage (context is reset beside it). */
export const forgetSession = [{ type: 'persistAccount', params: { user: null } }, 'clearSession'] as const;

/** Keeps the location a ROUTE event brings. */
export const setLocation = rootSetup.assign({ location: ({ event }) => (event as Extract<RootEvent, { type: 'ROUTE' }>).location });

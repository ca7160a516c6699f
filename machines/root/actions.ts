// The root machine's shared actions: the route guard applied to the current location, and
// forgetting a signed-out session.
import type { ActionArgs, EventObject } from 'xstate';
import { locationOf, rootSetup, stepUpSearch, type Context, type RootEvent } from './setup.ts';
import { HOME_PATH, LOGIN_PATH, allowedRedirect, guard, pathOf, type Location, type SessionState } from '../routes.ts';

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

/** Where a step-up's code is asked for: the methods, with the way back to the sensitive screen. */
export const stepUpPath = (location: Location) => `${pathOf('mfa', 'methods')}${stepUpSearch(location)}`;

/** Follows where the right code leads (context.afterCode): a screen of ours (the location the guard
 * judges next), a partner, or Back. It reads only the context, so any event may carry it (a flow's
 * end, a user's load). */
export const followAfterCode = rootSetup.enqueueActions(({ context, enqueue }) => {
  const next = context.afterCode;
  if (!next) return;
  if (next.kind === 'partner') enqueue({ type: 'leaveTo', params: { url: next.url } });
  else if (next.kind === 'back') enqueue({ type: 'goBack', params: { steps: next.steps } });
  else {
    enqueue.assign({ location: locationOf(next.to) });
    enqueue({ type: 'navigate', params: { to: next.to } });
  }
  enqueue.assign({ afterCode: null });
}) as unknown as <E extends EventObject>(args: ActionArgs<Context, E, RootEvent>, params: unknown) => void;

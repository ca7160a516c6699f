// Binds the root machine to the real world: the API client, the router, storage, analytics.
// The router only changes screens when the machine says so (`navigate`), and every location
// change (link, back button, reload) goes back to the machine as ROUTE.
/** Where the machine's navigation requests go: set by RouteSync once the router is mounted. */
export type Navigator = { current: ((to: string) => void) | null; pending: string | null };
import { createActor, fromCallback, fromPromise, type ActorOptions, type AnyActorLogic } from 'xstate';
import type { MfaMethodSummary, UserProfile } from '../../contract/baseSchemas.ts';
import { rootMachine } from '../../machines/root.ts';
import { isAuthorisationReturn } from '../../machines/routes.ts';
import { loginMachine } from '../../machines/login.ts';
import { exchangeTicket, fetchUser, loadConfig, logout, submitLogin } from '../api/calls.ts';
import { takeLoginTicket } from './loginTicket.ts';
import { onUnauthorised } from '../api/client.ts';
import { authorisationRequest, signingInTo, takeInlinedConfig, takeKnownAbsentSession } from '../shell/boot.ts';
import { flowsOf } from './flows.ts';
import { configureAnalytics, trackPageView } from '../analytics.ts';
import { clear, read, readJson, write } from '../shell/storage.ts';
import { variant } from '../variant.ts';

/** Passkeys, with their library: loaded once the sign-in form is open, never before it paints. */
const passkeys = () => import('../api/passkeys.ts');

const ACCOUNT_KEY = 'account';
const TARGET_KEY = 'targetUrl';

/** A navigation request: before the router mounts (while the session settles) it waits for it. */
export function requestNavigation(navigator: Navigator, to: string): void {
  if (navigator.current) navigator.current(to);
  else navigator.pending = to;
}

export function createRootActor(navigator: Navigator, inspect?: ActorOptions<AnyActorLogic>['inspect']) {
  const go = (to: string) => requestNavigation(navigator, to);
  // The flows tell the root what address was typed; the root exists once created below.
  let root: { send: (event: { type: 'USERNAME'; value: string }) => void } | null = null;
  const keepUsername = (value: string) => root?.send({ type: 'USERNAME', value });
  const machine = rootMachine.provide({
    actors: {
      loadConfig: fromPromise(async () => {
        const config = takeInlinedConfig() ?? (await loadConfig());
        configureAnalytics(config.analyticsUrl);
        return config;
      }),
      fetchUser: fromPromise(async () => {
        const absent = takeKnownAbsentSession();
        if (absent) throw absent;
        return fetchUser();
      }),
      logout: fromPromise(logout),
      exchangeTicket: fromPromise(({ input }) => exchangeTicket(input)),
      login: loginMachine.provide({
        // A sign-in for an application names its client (the server's forced set-up rule reads it).
        actors: {
          submitLogin: fromPromise(({ input }) => submitLogin({ ...input, clientId: signingInTo?.client_id ?? null })),
          passkeyAutofill: fromCallback(({ sendBack }) => {
            const stop = new AbortController();
            void passkeys().then((p) =>
              p.offerPasskeys(variant, stop.signal, {
                support: (can) => sendBack({ type: 'PASSKEY_SUPPORT', signIn: can.signIn }),
                picked: (answer) => sendBack({ type: 'PASSKEY_PICKED', answer }),
              }),
            );
            return () => stop.abort();
          }),
          askPasskey: fromPromise(async ({ signal }) => (await passkeys()).askSignInPasskey(signal)),
          passkeySignIn: fromPromise(async ({ input }) =>
            (await passkeys()).signInWithPasskey({
              credential: input.credential,
              clientId: signingInTo?.client_id ?? null,
            }),
          ),
        },
        actions: {
          typed: (_, { value }) => keepUsername(value),
          signalUnknownPasskey: (_, { rpId, credentialId }) =>
            void passkeys().then((p) => p.signalUnknownPasskey(rpId, credentialId)),
        },
      }),
      // The security area's check comes with the flows' calls.
      mfaStatus: fromPromise(async () => (await import('../api/flowCalls.ts')).mfaStatus()),
      ...flowsOf(go, keepUsername),
    },
    actions: {
      // The way back to the authorisation server is a page of the server: the browser loads it.
      navigate: (_, { to }) => (isAuthorisationReturn(to) ? window.location.assign(to) : go(to)),
      leaveTo: (_, { url }) => {
        window.location.assign(url);
      },
      goBack: (_, { steps }) => {
        window.history.go(-steps);
      },
      trackPageView: (_, { path }) => trackPageView(path),
      persistAccount: (_, { user }) => write('localStorage', ACCOUNT_KEY, user ? JSON.stringify(user) : null),
      persistTarget: (_, { target }) => write('sessionStorage', TARGET_KEY, target),
      storeSession: (_, { key, value }) => write('sessionStorage', key, value),
      clearSession: () => clear('sessionStorage'),
    },
  });
  // Before anything reads the address: the hash goes at once.
  const loginTicket = takeLoginTicket();
  // The page came without a session cookie; the ticket is about to open a session: ask for it.
  if (loginTicket) takeKnownAbsentSession();
  const location = window.location;
  const actor = createActor(machine, {
    input: {
      storedAccount: readJson<UserProfile>('localStorage', ACCOUNT_KEY),
      storedTarget: read('sessionStorage', TARGET_KEY),
      storedSignIn: readJson<{ payload: string; methods: MfaMethodSummary[] }>('sessionStorage', 'mfaPayload'),
      storedRenewal: read('sessionStorage', 'loginPayload'),
      location: { path: location.pathname, search: location.search },
      loginTicket,
      signingInTo,
      loginHint: authorisationRequest?.login_hint ?? null,
    },
    inspect,
  });
  root = actor;
  // The session ended elsewhere: a call answered 401, or another tab signed out (its account gone).
  const ended = () => actor.send({ type: 'SESSION_ENDED' });
  onUnauthorised(ended);
  addEventListener('storage', (event) => {
    if ((event.key === ACCOUNT_KEY || event.key === null) && !event.newValue) ended();
  });
  return actor;
}

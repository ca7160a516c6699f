// The root machine's setup: its context, events, children (one per flow, each started by the
// route table's flow of the current path) and the guards it decides with. Pure XState: every side
// effect is an action or actor the app provides with `.provide()`.
import { assign, fromPromise, setup } from 'xstate';
import type { AppConfig, UserProfile } from '../../contract/baseSchemas.ts';
import { errorOf } from '../failures.ts';
import { loginMachine } from '../login.ts';
import type { SetupMfaOutput } from '../setupMfa.ts';
import { decisionAfterCode, type AfterCode, type CodePurpose } from '../afterCode.ts';
import { LOGOUT_PATH, guard, inFlow, isAuthorisationStepUp, isSensitive, startsFlow, stepOf } from '../routes.ts';
import type { Flow, Location, StepOf } from '../routes.ts';
import {
  inMerge,
  inSecurity,
  is401,
  is503,
  locationOf,
  mustEnrol,
  opensToVisitor,
  resumedFlow,
  setupMfaExempt,
} from '../session.ts';
import type { Context, RootEvent, RootInput, MfaStatusAndMethods } from '../session.ts';
import type { FLOW_MACHINES } from '../flows.ts';

/** The set-up's steps that Security opens to add a method. */
const ADDING_STEPS: ReadonlySet<string> = new Set(['selection', 'phone', 'email', 'passkey', 'passkeyName']);

type FlowMachines = typeof FLOW_MACHINES;
type FlowName = keyof FlowMachines;

/** The flows beyond login, each a child of the same name. */
const FLOW_NAMES = [
  'mfa',
  'totpRecovery',
  'setupMfa',
  'security',
  'access',
  'securityHistory',
  'devices',
  'editPassword',
  'notifications',
  'authenticator',
  'weakPassword',
  'forgotPassword',
  'forgotUsername',
  'onboarding',
  'consent',
  'partner',
  'appLogout',
  'profile',
  'fuzzion',
] as const satisfies readonly FlowName[];

/**
 * The flows declared by their types only: the root does not import the flows beyond login, so each
 * can load in its own chunk. The app binds the real machines (src/app/flows.ts, loaded on first use);
 * tests bind `FLOW_MACHINES` (../flows.ts).
 */
function declaredFlows(): FlowMachines {
  const declared = (name: string) =>
    fromPromise(async () => {
      throw new Error(`the ${name} flow is provided by the app`);
    });
  return Object.fromEntries(FLOW_NAMES.map((name) => [name, declared(name)])) as unknown as FlowMachines;
}

/** A ROUTE event's location (the guards below are asked of ROUTE events only where they read it). */
const routed = (event: RootEvent): Location | null => (event.type === 'ROUTE' ? event.location : null);
/** What decides a location's screen: with a session, its query too (machines/routes.ts `query`);
 * without one, its path alone, as the guard reads it. */
const screenAt = (context: Context, location: Location | null): string | Location =>
  location === null ? '' : context.user ? location : location.path;

export const rootSetup = setup({
  types: {
    context: {} as Context,
    events: {} as RootEvent,
    input: {} as RootInput,
    // Every child by its id, so views read `snapshot.children.login` with its own type.
    children: {} as { [Name in FlowName]: Name } & {
      loadConfig: 'loadConfig';
      checkAgain: 'loadConfig';
      restoreUser: 'fetchUser';
      loadUser: 'fetchUser';
      logout: 'logout';
      exchangeTicket: 'exchangeTicket';
      login: 'login';
      stepUp: 'mfa';
      mfaStatus: 'mfaStatus';
    },
  },
  actors: {
    loadConfig: fromPromise<AppConfig>(async () => {
      throw new Error('loadConfig is provided by the app');
    }),
    fetchUser: fromPromise<UserProfile>(async () => {
      throw new Error('fetchUser is provided by the app');
    }),
    logout: fromPromise<void>(async () => {
      throw new Error('logout is provided by the app');
    }),
    exchangeTicket: fromPromise<unknown, { ticket: string; clientId: string }>(async () => {
      throw new Error('exchangeTicket is provided by the app');
    }),
    login: loginMachine,
    ...declaredFlows(),
    /** Whether this session passed MFA recently, and the methods to check it with. */
    mfaStatus: fromPromise<MfaStatusAndMethods>(async () => {
      throw new Error('mfaStatus is provided by the app');
    }),
  },
  actions: {
    // Side effects, provided by the app (router, storage, analytics, window.location).
    navigate: (_, _params: { to: string }) => {},
    leaveTo: (_, _params: { url: string }) => {},
    /** Back in the browser's history, by as many entries. */
    goBack: (_, _params: { steps: number }) => {},
    trackPageView: (_, _params: { path: string }) => {},
    persistAccount: (_, _params: { user: UserProfile | null }) => {},
    persistTarget: (_, _params: { target: string | null }) => {},
    /** Keeps a value in the tab's session storage (null removes it). */
    storeSession: (_, _params: { key: 'mfaPayload' | 'loginPayload' | 'mfa_forced'; value: string | null }) => {},
    clearSession: () => {},
    /** Asks once where the right code leads (../afterCode.ts), from the code entry's answer. */
    decideAfterCode: assign({
      afterCode: ({ context, event }, { purpose }: { purpose: CodePurpose }) =>
        event.type === 'xstate.done.actor.mfa' || event.type === 'xstate.done.actor.stepUp'
          ? decisionAfterCode(context, event.output, purpose)
          : context.afterCode,
    }),
  },
  delays: {
    /** How often the maintenance page checks by itself whether the API is back. */
    MAINTENANCE_RETRY: 60_000,
  },
  guards: {
    isMaintenance: ({ event }) => is503(errorOf(event)),
    isUnauthorised: ({ event }) => is401(errorOf(event)),
    hasStoredUser: ({ context }) => context.user !== null,
    hasLoginTicket: ({ context }) => context.loginTicket !== null,
    loginSucceeded: ({ event }) => event.type === 'xstate.done.actor.login' && event.output.kind === 'success',
    loginNeedsMfa: ({ event }) => event.type === 'xstate.done.actor.login' && event.output.kind === 'mfa',
    loginWeakPassword: ({ event }) => event.type === 'xstate.done.actor.login' && event.output.kind === 'weakPassword',
    /** A new password that ended this session with the others (machines/editPassword.ts). */
    passwordEndedSession: ({ event }) => event.type === 'xstate.done.actor.editPassword' && event.output.sessionEnded,
    // Where a location is, by the route table: a path belongs to a flow; some of its paths start it.
    /** A sign-in's second factor or a weak password's renewal resumes after a reload, from what the tab kept. */
    resumes: ({ context, event }, { flow }: { flow: 'mfa' | 'weakPassword' }) =>
      resumedFlow(context, routed(event)?.path ?? '') === flow,
    routeStartsFlow: ({ event }, { flow }: { flow: Flow }) => startsFlow(routed(event)?.path ?? '', flow),
    /** A path that starts the flow and may show to a visitor (a private one sends to sign-in first). */
    routeOpensToVisitor: ({ event }, { flow }: { flow: Flow }) => opensToVisitor(routed(event)?.path ?? '', flow),
    routeInFlow: ({ context, event }, { flow }: { flow: Flow }) => inFlow(screenAt(context, routed(event)), flow),
    routeIsLogout: ({ event }) => event.type === 'ROUTE' && guard(event.location, true).kind === 'logout',
    /** What the last right code leads to (spec §4 "MFA": the order after a code). */
    afterCodeIs: ({ context }, { kind }: { kind: AfterCode['kind'] }) => context.afterCode?.kind === kind,
    /** Forced users (and customers, once) without a second factor set one up first (spec §4 "Forced MFA"). */
    needsSetupMfa: ({ context, event }) => {
      const user =
        event.type === 'xstate.done.actor.restoreUser' || event.type === 'xstate.done.actor.loadUser'
          ? event.output
          : context.user;
      // Spec §9: the diversion applies when the client id is absent or first-party; spec §4: not
      // on the merge's and the code's screens, where the person is going.
      if (context.partnerLogin) return false;
      const going = context.target ? locationOf(context.target).path : context.location.path;
      if (inFlow(going, 'fuzzion') || inFlow(going, 'mfa')) return false;
      return (
        !!user &&
        !user.mfa_enrolled &&
        (user.mfa_forced || (user.mfa_customer && !user.mfa_offer_later && !context.setupMfaSkipped))
      );
    },
    /** The location is a screen of this flow (a reload or a deep link lands there). */
    atFlow: ({ context }, { flow }: { flow: Flow }) => inFlow(screenAt(context, context.location), flow),
    /** The session is in a merge (spec §6 "duplicated-logged") and the location is not one of its
     * screens (nor the sign-out): the merge's offer shows instead. */
    mergeElsewhere: ({ context }) =>
      inMerge(context.user) && !inFlow(context.location, 'fuzzion') && context.location.path !== LOGOUT_PATH,
    mergeOpen: ({ context }) => inMerge(context.user),
    /** The code screen an application's request sent a signed-in person to (prompt=login, max_age, a
     * second factor it demands), with the way back to that request. */
    atAuthorisationStepUp: ({ context }) => isAuthorisationStepUp(context.location),
    routeToSecurity: ({ event }) => inSecurity(routed(event)?.path ?? ''),
    atSecurity: ({ context }) => inSecurity(context.location.path),
    /** A screen of the flow that needs no fresh proof: the running flow shows it. */
    routeStaysIn: ({ event }, { flow }: { flow: Flow }) =>
      event.type === 'ROUTE' && inFlow(event.location.path, flow) && !isSensitive(event.location.path),
    /** The screen needs a recent second factor (the route table's `sensitive`). */
    atSensitive: ({ context }) => isSensitive(context.location.path),
    atTotpRecoveryWithMethod: ({ context }) =>
      inFlow(context.location.path, 'totpRecovery') && !!new URLSearchParams(context.location.search).get('mfaId'),
    /** The second factor's set-up, for an account that has none yet: a customer who skipped it comes back. */
    /** A forced account without a second factor, on a screen the set-up does not leave it: the
     * set-up first (after the merge, say, which its screens were exempt for). */
    setUpFirst: ({ context }) =>
      !context.partnerLogin && mustEnrol(context.user) && !setupMfaExempt(context.location.path),
    /** A forced account going to a screen the set-up lets it go to: the merge's, the code's. */
    routeExemptFromSetup: ({ context, event }) => {
      const path = routed(event)?.path;
      return mustEnrol(context.user) && !!path && (inFlow(path, 'fuzzion') || inFlow(path, 'mfa'));
    },
    atSetupWithoutMethod: ({ context }) =>
      inFlow(context.location.path, 'setupMfa') && context.user?.mfa_enrolled === false,
    atSetupAdding: ({ context }) => ADDING_STEPS.has(stepOf(context.location.path, 'setupMfa') ?? 'intro'),
    /** What the set-up ended with (machines/setupMfa.ts). */
    setupMfaIs: ({ event }, { outcome }: { outcome: SetupMfaOutput['outcome'] }) =>
      event.type === 'xstate.done.actor.setupMfa' && event.output.outcome === outcome,
    setUpFromSecurity: ({ event }) => event.type === 'xstate.done.actor.setupMfa' && event.output.voluntary,
    authenticatorReset: ({ event }) =>
      event.type === 'xstate.done.actor.totpRecovery' && event.output.outcome === 'reset',
    keysRegenerated: ({ event }) =>
      event.type === 'xstate.done.actor.totpRecovery' && event.output.outcome === 'regenerated',
    /** The authenticator's page showed keys the recovery screen made. */
    keysShown: ({ event }) => event.type === 'xstate.done.actor.authenticator' && event.output.regenerated,
    /** The authenticator's set-up, or its success page showing keys the recovery screen made. */
    onAuthenticatorPath: ({ context }) =>
      startsFlow(context.location.path, 'authenticator') ||
      (context.regeneratedKeys !== null && inFlow(context.location.path, 'authenticator')),
    /** The security area's screen the location asks for. */
    atSecurityStep: ({ context }, { step }: { step: StepOf<'security'> }) =>
      stepOf(context.location.path, 'security') === step,
    stepUpNeeded: ({ context, event }) =>
      isSensitive(context.location.path) && !(event.type === 'xstate.done.actor.mfaStatus' && event.output.sudo),
    forced: ({ context }) => mustEnrol(context.user),
  },
});

// The root's flows beyond login, loaded when first needed: each flow's actor logic is a lazyFlow
// (lazyFlow.ts) that, when the root first starts the flow, imports its feature's bindings (the
// feature's bindings.ts: the API calls of its flows) and the flow's machine, each in its own chunk.
import type { FLOW_MACHINES } from '../../machines/flows.ts';
import { lazyFlow } from '../shell/lazyFlow.ts';
import type { Go, KeepUsername } from '../shell/bindings.ts';

type Flows = typeof FLOW_MACHINES;

/** A feature's bindings: each of its flows' actor logic, given what the app lends it. */
type Bindings<K extends keyof Flows> = Record<K, (go: Go, keepUsername: KeepUsername) => Promise<unknown>>;

const mfa = () => import('../mfa/bindings.ts');
const setupMfa = () => import('../setupMfa/bindings.ts');
const security = () => import('../security/bindings.ts');
const access = () => import('../access/bindings.ts');
const notifications = () => import('../notifications/bindings.ts');
const recovery = () => import('../recovery/bindings.ts');
const onboarding = () => import('../onboarding/bindings.ts');
const consent = () => import('../consent/bindings.ts');
const partner = () => import('../partner/bindings.ts');
const appLogout = () => import('../appLogout/bindings.ts');
const profile = () => import('../profile/bindings.ts');
const fuzzion = () => import('../fuzzion/bindings.ts');

/** Each flow's actor logic for the root's `.provide()`; `go` asks the router for a path, and
 * `keepUsername` tells the root the address a form has typed. */
export function flowsOf(go: Go, keepUsername: KeepUsername): Flows {
  /** The flow `name` as its feature's bindings (`load`) bind it. */
  const flow = <K extends keyof Flows>(load: () => Promise<Bindings<K>>, name: K) =>
    lazyFlow(() => load().then((b) => b[name](go, keepUsername) as Promise<Flows[K]>)).logic;
  return {
    mfa: flow(mfa, 'mfa'),
    security: flow(security, 'security'),
    access: flow(access, 'access'),
    securityHistory: flow(security, 'securityHistory'),
    devices: flow(security, 'devices'),
    editPassword: flow(security, 'editPassword'),
    notifications: flow(notifications, 'notifications'),
    weakPassword: flow(recovery, 'weakPassword'),
    forgotUsername: flow(recovery, 'forgotUsername'),
    forgotPassword: flow(recovery, 'forgotPassword'),
    onboarding: flow(onboarding, 'onboarding'),
    authenticator: flow(security, 'authenticator'),
    totpRecovery: flow(mfa, 'totpRecovery'),
    setupMfa: flow(setupMfa, 'setupMfa'),
    consent: flow(consent, 'consent'),
    partner: flow(partner, 'partner'),
    appLogout: flow(appLogout, 'appLogout'),
    profile: flow(profile, 'profile'),
    fuzzion: flow(fuzzion, 'fuzzion'),
  };
}

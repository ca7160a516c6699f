// The root's flows beyond login, loaded when first needed: each flow's actor logic is a lazyFlow
// (lazyFlow.ts) that, when the root first starts the flow, imports the bindings (bindings.ts:
// the API calls of the flows) and the flow's machine, each in its own chunk.
import type { FLOW_MACHINES } from '../../machines/root/flows.ts';
import { lazyFlow } from '../shell/lazyFlow.ts';

type Flows = typeof FLOW_MACHINES;

const bindings = () => import('./bindings.ts');

/** Each flow's actor logic for the root's `.provide()`; `go` asks the router for a path, and
 * `keepUsername` tells the root the address a form has typed. */
export function flowsOf(go: (to: string) => void, keepUsername: (value: string) => void): Flows {
  const flow = <K extends keyof Flows>(name: K) =>
    lazyFlow(() => bindings().then((b) => b[name](go, keepUsername) as Promise<Flows[K]>)).logic;
  return {
    mfaCode: flow('mfaCode'),
    mfaSettings: flow('mfaSettings'),
    accessGrants: flow('accessGrants'),
    securityHistory: flow('securityHistory'),
    devices: flow('devices'),
    editPassword: flow('editPassword'),
    notifications: flow('notifications'),
    weakPassword: flow('weakPassword'),
    forgotUsername: flow('forgotUsername'),
    forgotPassword: flow('forgotPassword'),
    onboarding: flow('onboarding'),
    totpSetup: flow('totpSetup'),
    totpRecovery: flow('totpRecovery'),
    forcedMfa: flow('forcedMfa'),
    consent: flow('consent'),
    partner: flow('partner'),
    profile: flow('profile'),
  };
}

// Renders a machine as a Mermaid state diagram: nested states, initial states, final states and
// every transition with its event and guard, the eventless (`always`) branches included, drawn as
// `[always: guard]`. Used by `npm run charts` and by the staleness test, which also asks that no
// state but a final one be a dead end (`deadEnds`).
import type { AnyStateMachine } from 'xstate';
import { captchaMachine } from '../machines/captcha.ts';
import { setupMfaMachine } from '../machines/setupMfa.ts';
import { forgotPasswordMachine } from '../machines/forgotPassword.ts';
import { forgotUsernameMachine } from '../machines/forgotUsername.ts';
import { codeEntryMachine } from '../machines/codeEntry.ts';
import { loginMachine } from '../machines/login.ts';
import { accessMachine } from '../machines/access.ts';
import { historyMachine } from '../machines/history.ts';
import { devicesMachine } from '../machines/devices.ts';
import { editPasswordMachine } from '../machines/editPassword.ts';
import { notificationsMachine } from '../machines/notifications.ts';
import { securityMachine } from '../machines/security.ts';
import { mfaMachine } from '../machines/mfa.ts';
import { onboardingMachine } from '../machines/onboarding.ts';
import { rootMachine } from '../machines/root.ts';
import { totpRecoveryMachine } from '../machines/totpRecovery.ts';
import { authenticatorMachine } from '../machines/authenticator.ts';
import { newPasswordMachine } from '../machines/newPassword.ts';
import { consentMachine } from '../machines/consent.ts';
import { appLogoutMachine } from '../machines/appLogout.ts';
import { profileMachine } from '../machines/profile.ts';
import { cardsMachine } from '../machines/cards.ts';
import { passkeyOfferMachine } from '../machines/passkeyOffer.ts';
import { undoChangeMachine } from '../machines/undoChange.ts';
import { fuzzionMachine } from '../machines/fuzzion.ts';
import { partnerMachine } from '../machines/partner.ts';
import { microsoftMfaMachine, microsoftStartMachine } from '../machines/microsoft.ts';
import { ssoLinksMachine } from '../machines/ssoLinks.ts';

export const MACHINES: Record<string, AnyStateMachine> = {
  root: rootMachine,
  login: loginMachine,
  mfa: mfaMachine,
  totpRecovery: totpRecoveryMachine,
  setupMfa: setupMfaMachine,
  security: securityMachine,
  access: accessMachine,
  history: historyMachine,
  devices: devicesMachine,
  editPassword: editPasswordMachine,
  notifications: notificationsMachine,
  authenticator: authenticatorMachine,
  newPassword: newPasswordMachine,
  codeEntry: codeEntryMachine,
  forgotPassword: forgotPasswordMachine,
  forgotUsername: forgotUsernameMachine,
  captcha: captchaMachine,
  onboarding: onboardingMachine,
  consent: consentMachine,
  partner: partnerMachine,
  appLogout: appLogoutMachine,
  profile: profileMachine,
  cards: cardsMachine,
  passkeyOffer: passkeyOfferMachine,
  undoChange: undoChangeMachine,
  fuzzion: fuzzionMachine,
  microsoftStart: microsoftStartMachine,
  microsoftMfa: microsoftMfaMachine,
  ssoLinks: ssoLinksMachine,
};

type Node = AnyStateMachine['root'];

const name = (node: Node) => node.id.replace(/[^A-Za-z0-9_]/g, '_');

/** A guard's name: its type (a parameterised guard's too) or an inline function's name. */
export function guardNameOf(guard: unknown): string {
  if (!guard) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return guard.name && guard.name !== 'guard' ? guard.name : 'guarded';
  return (guard as { type?: string }).type ?? 'guarded';
}

function eventLabel(eventType: string, guard: unknown): string {
  if (eventType === '') {
    const always = guardNameOf(guard);
    return always ? `[always: ${always}]` : '[always]';
  }
  const short = eventType
    .replace(/^xstate\.done\.actor\.(.+)$/, 'done: $1')
    .replace(/^xstate\.error\.actor\.(.+)$/, 'error: $1')
    .replace(/^xstate\.after\.(.+)$/, 'after $1');
  const guardName = guardNameOf(guard);
  return guardName ? `${short} [${guardName}]` : short;
}

function render(node: Node, indent: string, lines: string[]): void {
  const children = Object.values(node.states) as Node[];
  if (children.length > 0 && node !== node.machine.root) {
    lines.push(`${indent}state ${name(node)} {`);
    renderChildren(node, `${indent}  `, lines);
    lines.push(`${indent}}`);
  } else if (node === node.machine.root) {
    renderChildren(node, indent, lines);
  }
  for (const transitions of [...node.transitions.values(), node.always ?? []]) {
    for (const t of transitions) {
      const targets = t.target ?? [node];
      for (const target of targets)
        lines.push(`${indent}${name(node)} --> ${name(target as Node)}: ${eventLabel(t.eventType, t.guard)}`);
    }
  }
}

function renderChildren(node: Node, indent: string, lines: string[]): void {
  const children = Object.values(node.states) as Node[];
  const initial = node.config.initial;
  if (typeof initial === 'string') lines.push(`${indent}[*] --> ${name(node.states[initial] as Node)}`);
  for (const child of children) {
    if (child.type === 'final') lines.push(`${indent}${name(child)} --> [*]`);
    render(child, indent, lines);
  }
}

/** Whether the node itself has a way out: a transition on an event (an invoked actor's onDone or
 * onError and an `after` delay among them) or an eventless branch. */
const leaves = (node: Node) => node.transitions.size > 0 || (node.always?.length ?? 0) > 0;

/** Whether a state of a parallel state's regions leads out of the parallel state: then every region
 * is left with it, and a region resting on a state of its own (a code's expiry that ran out) is no
 * dead end. */
function leftFromWithin(parallel: Node): boolean {
  const inside = (node: Node): boolean => node === parallel || (node.parent ? inside(node.parent) : false);
  const descendants = (node: Node): Node[] =>
    (Object.values(node.states) as Node[]).flatMap((child) => [child, ...descendants(child)]);
  return descendants(parallel).some((node) =>
    [...node.transitions.values(), node.always ?? []]
      .flat()
      .some((t) => (t.target ?? []).some((target) => !inside(target as Node))),
  );
}

/** The states, finals aside, that nothing leads out of: neither they nor a state holding them has
 * a transition of any kind (on an event, eventless, an invoked actor's onDone/onError, `after`),
 * nor a sibling region of a parallel state holding them. A state holding others is left through
 * them, so only the innermost states are asked. */
export function deadEnds(machine: AnyStateMachine): string[] {
  const dead: string[] = [];
  const visit = (node: Node, ancestorsLeave: boolean) => {
    const children = Object.values(node.states) as Node[];
    const out = ancestorsLeave || leaves(node) || (node.type === 'parallel' && leftFromWithin(node));
    if (children.length === 0 && node.type !== 'final' && !out && node !== machine.root) dead.push(node.id);
    for (const child of children) visit(child, out);
  };
  visit(machine.root, false);
  return dead;
}

export function mermaid(machine: AnyStateMachine): string {
  const lines = ['stateDiagram-v2'];
  render(machine.root, '  ', lines);
  return lines.join('\n');
}

export function chartDocument(key: string, machine: AnyStateMachine): string {
  return `# ${key} statechart\n\nGenerated from \`machines/${key}.ts\` by \`npm run charts\`; do not edit by hand.\n\n\`\`\`mermaid\n${mermaid(machine)}\n\`\`\`\n`;
}

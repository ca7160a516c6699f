// The onboarding machine, walked over every reachable state: every declared transition taken, and
// the spec's predecessor rules (§2) checked on every step of the walk, not on a few examples.
import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { DEFAULT_PASSWORD_POLICY } from '../contract/password.ts';
import type { OnboardingCodeSent, OnboardingStarted } from '../contract/schemas.ts';
import { CAPTCHA_FAILURES } from '../machines/captcha.ts';
import { codeEntryMachineOf } from '../machines/codeEntry.ts';
import { ONBOARDING_STEPS, PREDECESSORS, onboardingMachine, type OnboardingStep } from '../machines/onboarding.ts';
import { report, stepsOf, walk } from './coverage.ts';

const welcome = (source: 'card' | 'invitation'): OnboardingStarted => ({
  flow: 'flow-token', source,
  welcome: {
    firstname: 'Nora', lastname: 'Nys', company: 'Brasserie', email: source === 'card' ? 'nora@example.be' : 'anna@example.be',
    emailVerified: source === 'invitation', phone: source === 'card' ? '+32470101001' : null, language: 'nl',
  },
});
const sent: OnboardingCodeSent = { verified: false, target: 'n***@example.be', expires_in: 900, resend_in: 30 };
const proven: OnboardingCodeSent = { verified: true, target: 'n***@example.be' };
const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output });
const fail = (id: string, status: number, code: string, extra: Record<string, unknown> = {}) =>
  ({ type: `xstate.error.actor.${id}`, error: apiFailure(status, { code, message: code, ...extra }) });

type Ctx = {
  step: OnboardingStep; source: string | null; flow: string | null; termsAccepted: boolean; profileSaved: boolean;
  consents: { terms: boolean; privacy: boolean }; profile: { firstname: string; lastname: string }; cardNumber: string; activationCode: string;
  invitationCode: string; email: string; provenEmail: string | null; phone: string; provenPhone: string | null;
  challenge: { kind: string } | null; outcome: unknown; error: unknown; usernames: string[];
};
type Snap = { value: unknown; context: Ctx; children: Record<string, unknown> };

/** The person's moves, only those that mean something on the step shown (the walk stays small). */
function events(snapshot: unknown) {
  const { context: c, children } = snapshot as Snap;
  const moves: Array<{ type: string; [key: string]: unknown }> = [
    ...ONBOARDING_STEPS.map((step) => ({ type: 'ROUTE', step })),
    { type: 'CHOOSE', source: 'card' }, { type: 'CHOOSE', source: 'invitation' },
    { type: 'SUBMIT', captcha: { token: 'solved' } }, { type: 'SUBMIT', captcha: { error: CAPTCHA_FAILURES.notLoaded } },
    { type: 'RESEND' }, { type: 'CONTINUE' }, { type: 'BACK' },
  ];
  const stepMoves: Partial<Record<OnboardingStep, Array<{ type: string; [key: string]: unknown }>>> = {
    card: [
      { type: 'CHANGE', field: 'cardNumber', value: c.cardNumber ? '' : '5065 0000 0000 1001' },
      { type: 'CHANGE', field: 'activationCode', value: c.activationCode ? '' : '100101' },
    ],
    code: [{ type: 'CHANGE', field: 'invitationCode', value: c.invitationCode ? '' : 'TESS-JOIN-0001' }],
    'terms-conditions': [{ type: 'TOGGLE', consent: 'terms' }, { type: 'TOGGLE', consent: 'privacy' }, { type: 'TOGGLE', consent: 'sms' }],
    create: [
      { type: 'CHANGE', field: 'firstname', value: c.profile.firstname ? '' : 'Nora' }, { type: 'CHANGE', field: 'lastname', value: c.profile.lastname ? '' : 'Nys' },
      { type: 'SET_LANGUAGE', language: 'fr' },
    ],
    'email-verification': [{ type: 'CHANGE', field: 'email', value: c.email ? '' : 'nora@example.be' }],
    'phone-verification': [{ type: 'CHANGE', field: 'phone', value: c.phone ? '' : '0470 10 10 01' }, { type: 'SET_CHANNEL', channel: 'whatsapp' }],
  };
  const answers = [
    done('startWithCard', welcome('card')), fail('startWithCard', 400, 'invalid_activation_code'),
    fail('startWithCard', 409, 'card_already_active', { usernames: ['e***@example.be'] }),
    done('startWithInvitation', welcome('invitation')), fail('startWithInvitation', 400, 'invalid_invitation_code'),
    done('acceptTerms'), fail('acceptTerms', 410, 'onboarding_expired'), fail('acceptTerms', 503, 'internal_error'),
    done('saveProfile'), fail('saveProfile', 410, 'onboarding_expired'), fail('saveProfile', 400, 'validation_failed'),
    done('sendEmailCode', sent), done('sendEmailCode', proven), fail('sendEmailCode', 409, 'email_unavailable'), fail('sendEmailCode', 410, 'onboarding_expired'),
    done('sendPhoneCode', sent), done('sendPhoneCode', proven), fail('sendPhoneCode', 409, 'phone_unavailable'), fail('sendPhoneCode', 410, 'onboarding_expired'),
    done('codeEntry', { result: { verified: c.challenge?.kind ?? 'email' }, failure: null }),
    done('codeEntry', { result: null, failure: { code: 'onboarding_expired' } }),
    done('resendEmailCode', sent), fail('resendEmailCode', 429, 'resend_too_soon'), fail('resendEmailCode', 410, 'onboarding_expired'),
    done('resendPhoneCode', sent), fail('resendPhoneCode', 429, 'resend_too_soon'), fail('resendPhoneCode', 410, 'onboarding_expired'),
    done('newPassword', { result: { outcome: 'card_activation_failed', username: 'nora@example.be' } }),
  ].filter((e) => {
    // An actor's answer can only come while that actor runs.
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(e.type)?.[1];
    return actor !== undefined && actor in (children ?? {});
  });
  return [...moves, ...(stepMoves[c.step] ?? []), ...answers] as never;
}

/** What tells two states apart for the machine's behaviour: what the ways into the steps need,
 * and the form fields of the step shown only (a field's value matters only on its own step). */
function serializeState({ value, context }: { value: unknown; context: unknown }) {
  const c = context as Ctx;
  const form: Partial<Record<OnboardingStep, unknown>> = {
    card: [!!c.cardNumber, !!c.activationCode],
    code: !!c.invitationCode,
    'terms-conditions': [c.consents.terms, c.consents.privacy],
    create: !!c.profile.firstname.trim() && !!c.profile.lastname.trim(),
    'email-verification': !!c.email.trim(),
    'phone-verification': !!c.phone.trim(),
  };
  return JSON.stringify([
    value, c.step, c.source, !!c.flow, c.termsAccepted, c.profileSaved, c.provenEmail !== null, c.provenPhone !== null,
    c.challenge?.kind ?? null, !!c.outcome, !!c.error, c.usernames.length > 0, form[c.step] ?? null,
  ]);
}

const input = { entry: 'onboarding' as const, policy: DEFAULT_PASSWORD_POLICY, language: 'en' as const };

describe('onboarding machine: model', () => {
  const result = walk(onboardingMachine, { input, events, serializeState });
  const steps = stepsOf(result);
  const stepOf = (snapshot: { context: Record<string, unknown> }) => snapshot.context.step as OnboardingStep;

  it('takes every declared transition', () => {
    console.info(report('onboarding', result));
    expect(result.missing).toEqual([]);
  });

  it('enters a step only from a step the spec names; any other way in goes back to the start, with nothing kept', () => {
    let checked = 0;
    let refused = 0;
    for (const { from, event, to } of steps) {
      const before = stepOf(from);
      const after = stepOf(to);
      if (after === before || after === 'onboarding' || after === 'existingCard') continue;
      checked++;
      expect(PREDECESSORS[after as keyof typeof PREDECESSORS], `${before} → ${after} on ${event.type}`).toContain(before);
    }
    for (const { from, event, to } of steps.filter((s) => s.event.type === 'ROUTE')) {
      const asked = (event as unknown as { step: OnboardingStep }).step;
      const before = stepOf(from);
      if (asked === before || asked === 'existingCard' || asked === 'onboarding') continue;
      if (!PREDECESSORS[asked as keyof typeof PREDECESSORS].includes(before)) {
        refused++;
        expect(stepOf(to), `${before} → ${asked}`).toBe('onboarding');
        expect(to.context.flow, `${before} → ${asked} forgets the flow`).toBeNull();
      }
    }
    expect(checked).toBeGreaterThan(20);
    // Every reachable state was asked for every step: thousands of refused ways in.
    expect(refused).toBeGreaterThan(1000);
  });

  it('makes every predecessor rule of the spec a real way in', () => {
    for (const [step, from] of Object.entries(PREDECESSORS) as Array<[OnboardingStep, OnboardingStep[]]>) {
      for (const before of from) {
        const entered = steps.some((s) => stepOf(s.from) === before && stepOf(s.to) === step);
        expect(entered, `${before} → ${step}`).toBe(true);
      }
    }
  });

  it('opens existingCard from anywhere', () => {
    const fromSteps = new Set(steps.filter((s) => s.event.type === 'ROUTE' && (s.event as unknown as { step: string }).step === 'existingCard')
      .filter((s) => stepOf(s.to) === 'existingCard').map((s) => stepOf(s.from)));
    expect([...fromSteps].sort()).toEqual([...ONBOARDING_STEPS].sort());
  });

  it('sends a first visit of any step but existingCard to the start', () => {
    for (const entry of ONBOARDING_STEPS) {
      const actor = createActor(onboardingMachine, { input: { ...input, entry } }).start();
      expect(actor.getSnapshot().context.step).toBe(entry === 'existingCard' ? 'existingCard' : 'onboarding');
    }
  });
});

describe('onboarding machine: the code step on a simulated clock', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  async function atEmailCode(check: () => Promise<{ verified: 'email' | 'phone' }> = async () => ({ verified: 'email' })) {
    const clock = new SimulatedClock();
    const calls: string[] = [];
    const shown: string[] = [];
    const actor = createActor(onboardingMachine.provide({
      actors: {
        startWithCard: fromPromise(async () => welcome('card')),
        acceptTerms: fromPromise(async () => {}),
        saveProfile: fromPromise(async () => {}),
        sendEmailCode: fromPromise(async ({ input: i }) => { calls.push(`email:${i.email}`); return sent; }),
        codeEntry: codeEntryMachineOf<{ verified: 'email' | 'phone' }>().provide({ actors: { check: fromPromise(check) } }),
      },
      actions: { show: (_, { step }) => { shown.push(step); } },
    }), { input, clock }).start();
    actor.send({ type: 'CHOOSE', source: 'card' });
    actor.send({ type: 'CHANGE', field: 'cardNumber', value: '5065000000001001' });
    actor.send({ type: 'CHANGE', field: 'activationCode', value: '100101' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved' } });
    await settle();
    actor.send({ type: 'CONTINUE' });
    actor.send({ type: 'TOGGLE', consent: 'terms' });
    actor.send({ type: 'TOGGLE', consent: 'privacy' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    actor.send({ type: 'SUBMIT' });
    await settle();
    actor.send({ type: 'SUBMIT' });
    await settle();
    return { actor, clock, calls, shown };
  }

  it('walks from the card to the email code, prefilled with what the employer told us, showing each step', async () => {
    const { actor, shown, calls } = await atEmailCode();
    expect(shown).toEqual(['onboarding', 'card', 'welcome', 'terms-conditions', 'create', 'email-verification', 'onboarding-mfa']);
    expect(calls).toEqual(['email:nora@example.be']);
    expect(actor.getSnapshot().context.profile).toMatchObject({ firstname: 'Nora', lastname: 'Nys', language: 'nl' });
  });

  it('lets a new code go after 30 s only, and shows the code expired after 900 s', async () => {
    const { actor, clock, calls } = await atEmailCode();
    const entry = () => actor.getSnapshot().children.codeEntry!;
    entry().send({ type: 'RESEND' });
    expect(calls).toHaveLength(1);
    clock.increment(30_000);
    expect(entry().getSnapshot().matches({ entering: { resend: 'ready' } })).toBe(true);
    entry().send({ type: 'RESEND' });
    await settle();
    expect(calls).toHaveLength(2);
    expect(entry().getSnapshot().matches({ entering: { resend: 'cooling', expiry: 'running' } })).toBe(true);
    clock.increment(900_000);
    expect(entry().getSnapshot().matches({ entering: { expiry: 'expired' } })).toBe(true);
  });

  it('goes on to the phone with the right email code, and starts over, saying why, when the flow expired', async () => {
    const { actor } = await atEmailCode();
    const entry = actor.getSnapshot().children.codeEntry!;
    entry.send({ type: 'TYPE', value: '12345678' });
    entry.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ step: 'phone-verification', provenEmail: 'nora@example.be' });

    const gone = await atEmailCode(async () => { throw apiFailure(410, { code: 'onboarding_expired' }); });
    const goneEntry = gone.actor.getSnapshot().children.codeEntry!;
    goneEntry.send({ type: 'TYPE', value: '12345678' });
    goneEntry.send({ type: 'SUBMIT' });
    await settle();
    expect(gone.actor.getSnapshot().context).toMatchObject({ step: 'onboarding', flow: null, error: { code: 'onboarding_expired' } });
  });
});

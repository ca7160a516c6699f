// The onboarding machine, walked over every reachable state: every declared transition taken, and
// the spec's predecessor rules (§2) checked on every step of the walk, not on a few examples. The
// walk starts on the start and, as a reload does, on steps past the card with a flow recalled.
import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { apiFailure, type ApiFailure } from '../contract/api.ts';
import type { OnboardingProgress } from '../contract/onboarding.ts';
import { codeEntryMachineOf } from '../machines/codeEntry.ts';
import {
  ONBOARDING_STEPS,
  PREDECESSORS,
  onboardingMachine,
  type OnboardingMemory,
  type OnboardingRecalled,
  type CodeRequest,
  type OnboardingEvent,
  type OnboardingStep,
} from '../machines/onboarding.ts';
import { report, startOf, stepsOf, walkFrom } from './coverage.ts';
import { enterCode, refuses, settle } from './events.ts';
import { SIGNED_IN, input, onboardingModel, recalledAt, sent, welcome, type Ctx } from './onboarding.model.ts';

type Verified = { verified: 'email' | 'phone' };
/** The code entry as the app specialises it: its check, and a new code sent by the flow's request. */
const entryWith = (
  check: () => Promise<Verified>,
  send: (request: CodeRequest) => Promise<typeof sent> = async () => sent,
) =>
  codeEntryMachineOf<Verified, CodeRequest>().provide({
    actors: {
      check: fromPromise(check),
      send: fromPromise(async ({ input: { request } }) => ({ ticket: request.flow, sent: await send(request) })),
    },
  });

/** The steps a reload may show for each progress: those whose call the server would take. */
const SHOWABLE: Record<OnboardingProgress, OnboardingStep[]> = {
  started: ['welcome', 'terms-conditions'],
  terms_accepted: ['welcome', 'terms-conditions', 'create'],
  profile_saved: ['welcome', 'terms-conditions', 'create', 'email-verification'],
  email_code_sent: ['welcome', 'terms-conditions', 'create', 'email-verification', 'onboarding-mfa'],
  email_verified: ['welcome', 'terms-conditions', 'create', 'email-verification', 'phone-verification'],
  phone_code_sent: [
    'welcome',
    'terms-conditions',
    'create',
    'email-verification',
    'phone-verification',
    'onboarding-mfa',
  ],
  phone_verified: ['welcome', 'terms-conditions', 'create', 'email-verification', 'phone-verification', 'password'],
  completed: [],
};

describe('onboarding machine: model', () => {
  // From the start, and reloaded on the first and the last step a reload resumes.
  const runs = ['onboarding', 'welcome', 'password'].map((name) =>
    walkFrom(onboardingModel, startOf(onboardingModel, name)),
  );
  const steps = runs.flatMap(stepsOf);
  const stepOf = (snapshot: { context: Record<string, unknown> }) => snapshot.context.step as OnboardingStep;
  const resuming = (snapshot: { value: unknown }) => snapshot.value === 'recalling';

  it('takes every declared transition, eventless branches included', () => {
    // A named start more: a first visit straight to existingCard.
    const starts = [...runs, walkFrom(onboardingModel, startOf(onboardingModel, 'existingCard'))];
    const missing = starts[0]!.missing.filter((t) => starts.every((r) => r.missing.includes(t)));
    const result = {
      ...starts[0]!,
      taken: starts[0]!.declared - missing.length,
      missing,
      states: starts.reduce((n, r) => n + r.states, 0),
    };
    console.info(report('onboarding', result));
    expect(missing).toEqual([]);
  });

  it('resumes a reload only on a step the server got to, with what it needs; nothing or an expired flow shows the start', () => {
    let resumed = 0;
    for (const { from, event, to } of steps.filter((s) => resuming(s.from) && s.event.type.endsWith('.actor.recall'))) {
      const recalled = (event as { output?: OnboardingRecalled | null }).output;
      if (!recalled) {
        expect(stepOf(to), event.type).toBe('onboarding');
        continue;
      }
      resumed++;
      expect(SHOWABLE[recalled.state.progress], `${stepOf(from)} at ${recalled.state.progress}`).toContain(stepOf(to));
      // The step reloaded, whenever it can show.
      if (SHOWABLE[recalled.state.progress].includes(stepOf(from))) expect(stepOf(to)).toBe(stepOf(from));
    }
    expect(resumed).toBeGreaterThan(10);
  });

  it('enters a step only from a step the spec names; any other way in goes back to the start, with nothing kept', () => {
    let checked = 0;
    let refused = 0;
    // A reload's resumption follows its own rule (above); every move after it follows the spec's.
    for (const { from, event, to } of steps.filter((s) => !resuming(s.from))) {
      const before = stepOf(from);
      const after = stepOf(to);
      if (after === before || after === 'onboarding' || after === 'existingCard') continue;
      checked++;
      expect(PREDECESSORS[after as keyof typeof PREDECESSORS], `${before} → ${after} on ${event.type}`).toContain(
        before,
      );
    }
    for (const { from, event, to } of steps.filter((s) => s.event.type === 'ROUTE' && !resuming(s.from))) {
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

  it('takes an address another account has back to its step, saying so, unproven, with the flow kept', () => {
    const taken = steps.filter(
      (s) =>
        s.event.type === 'xstate.done.actor.codeEntry' &&
        /_unavailable$/.test(
          (s.event as unknown as { output: { failure?: { code: string } | null } }).output.failure?.code ?? '',
        ),
    );
    const kinds = new Set<string>();
    for (const { from, event, to } of taken) {
      const code = (event as unknown as { output: { failure: { code: string } } }).output.failure.code;
      const kind = (from.context as unknown as Ctx).challenge!.kind;
      kinds.add(kind);
      expect(stepOf(to), `${kind} code answered ${code}`).toBe(
        kind === 'email' ? 'email-verification' : 'phone-verification',
      );
      expect(to.context).toMatchObject({
        error: { code },
        challenge: null,
        flow: from.context.flow,
        [kind === 'email' ? 'provenEmail' : 'provenPhone']: null,
      });
      // No dead end: the step takes another address.
      expect(to.value).toEqual({ [kind === 'email' ? 'emailVerification' : 'phoneVerification']: 'editing' });
    }
    expect([...kinds].sort()).toEqual(['email', 'phone']);
  });

  it('opens existingCard from anywhere', () => {
    const fromSteps = new Set(
      steps
        .filter((s) => s.event.type === 'ROUTE' && (s.event as unknown as { step: string }).step === 'existingCard')
        .filter((s) => stepOf(s.to) === 'existingCard')
        .map((s) => stepOf(s.from)),
    );
    expect([...fromSteps].sort()).toEqual([...ONBOARDING_STEPS].sort());
  });

  it('sends a first visit of any step but existingCard to the start, when the tab kept no flow', async () => {
    for (const entry of ONBOARDING_STEPS) {
      const actor = createActor(onboardingMachine, { input: { ...input, entry } }).start();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(actor.getSnapshot().context.step).toBe(entry === 'existingCard' ? 'existingCard' : 'onboarding');
    }
  });
});

/** The calls of the card's way in, up to the email step: each taken. */
const cardWayIn: NonNullable<Parameters<typeof onboardingMachine.provide>[0]['actors']> = {
  startWithCard: fromPromise(async () => welcome('card')),
  acceptTerms: fromPromise(async () => {}),
  saveProfile: fromPromise(async () => {}),
};
type Flow = { send(event: OnboardingEvent): void };
/** Chooses the card way in and types the card's number and activation code. */
function fillCard(actor: Flow) {
  actor.send({ type: 'CHOOSE', source: 'card' });
  actor.send({ type: 'CHANGE', field: 'cardNumber', value: '5065000000001001' });
  actor.send({ type: 'CHANGE', field: 'activationCode', value: '100101' });
}
/** Takes a new flow by its card through the welcome, the terms and the profile, to the email step. */
async function toEmailStep(actor: Flow) {
  fillCard(actor);
  actor.send({ type: 'SUBMIT', captcha: { token: 'solved' } });
  await settle();
  actor.send({ type: 'CONTINUE' });
  actor.send({ type: 'TOGGLE', consent: 'terms' });
  actor.send({ type: 'TOGGLE', consent: 'privacy' });
  actor.send({ type: 'SUBMIT' });
  await settle();
  actor.send({ type: 'SUBMIT' });
  await settle();
}

describe('onboarding machine: the code step on a simulated clock', () => {
  async function atEmailCode(
    check: () => Promise<{ verified: 'email' | 'phone' }> = async () => ({ verified: 'email' }),
  ) {
    const clock = new SimulatedClock();
    const calls: string[] = [];
    const shown: string[] = [];
    const actor = createActor(
      onboardingMachine.provide({
        actors: {
          ...cardWayIn,
          sendEmailCode: fromPromise(async ({ input: i }) => {
            calls.push(`email:${i.email}`);
            return sent;
          }),
          codeEntry: entryWith(check, async (request) => {
            calls.push(request.kind === 'email' ? `email:${request.email}` : `phone:${request.phone}`);
            return sent;
          }),
        },
        actions: {
          show: (_, { step }) => {
            shown.push(step);
          },
        },
      }),
      { input, clock },
    ).start();
    await toEmailStep(actor);
    actor.send({ type: 'SUBMIT' });
    await settle();
    return { actor, clock, calls, shown };
  }

  it('walks from the card to the email code, prefilled with what the employer told us, showing each step', async () => {
    const { actor, shown, calls } = await atEmailCode();
    expect(shown).toEqual([
      'onboarding',
      'card',
      'welcome',
      'terms-conditions',
      'create',
      'email-verification',
      'onboarding-mfa',
    ]);
    expect(calls).toEqual(['email:nora@example.be']);
    expect(actor.getSnapshot().context.profile).toEqual({ firstname: 'Nora', lastname: 'Nys' });
  });

  it('lets a new code go after 30 s only, and shows the code expired after 900 s', async () => {
    const { actor, clock, calls } = await atEmailCode();
    const entry = () => actor.getSnapshot().children.codeEntry!;
    const entryState = () => entry().getSnapshot();
    entry().send({ type: 'RESEND' });
    expect(calls).toHaveLength(1);
    clock.increment(30_000);
    expect(entryState().matches({ entering: { resend: 'ready' } })).toBe(true);
    entry().send({ type: 'RESEND' });
    await settle();
    expect(calls).toHaveLength(2);
    expect(entryState().matches({ entering: { resend: 'cooling', expiry: 'running' } })).toBe(true);
    clock.increment(900_000);
    expect(entryState().matches({ entering: { expiry: 'expired' } })).toBe(true);
  });

  it('goes on to the phone with the right email code, and starts over, saying why, when the flow expired', async () => {
    const { actor } = await atEmailCode();
    const entry = actor.getSnapshot().children.codeEntry!;
    await enterCode(entry, '12345678');
    expect(actor.getSnapshot().context).toMatchObject({ step: 'phone-verification', provenEmail: 'nora@example.be' });

    const gone = await atEmailCode(refuses(410, { code: 'onboarding_expired' }));
    const goneEntry = gone.actor.getSnapshot().children.codeEntry!;
    await enterCode(goneEntry, '12345678');
    expect(gone.actor.getSnapshot().context).toMatchObject({
      step: 'onboarding',
      flow: null,
      error: { code: 'onboarding_expired' },
    });
  });
});

describe('onboarding machine: an address another account has', () => {
  it('shows "already used" after the right code, on the email step, and lets the person send a code to another address', async () => {
    const calls: string[] = [];
    const actor = createActor(
      onboardingMachine.provide({
        actors: {
          ...cardWayIn,
          sendEmailCode: fromPromise(async ({ input: i }) => {
            calls.push(i.email);
            return sent;
          }),
          codeEntry: codeEntryMachineOf<Verified, CodeRequest>().provide({
            actors: {
              check: fromPromise(async (): Promise<{ verified: 'email' | 'phone' }> => {
                if (calls.at(-1) === 'nora@example.be')
                  throw apiFailure(409, {
                    code: 'email_unavailable',
                    message: 'This email is invalid or already used',
                  });
                return { verified: 'email' };
              }),
            },
          }),
        },
      }),
      { input },
    ).start();
    await toEmailStep(actor);
    // The address the employer gave is another account's: the code goes out as for any other.
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().context.step).toBe('onboarding-mfa');
    const entry = actor.getSnapshot().children.codeEntry!;
    await enterCode(entry, '12345678');
    expect(actor.getSnapshot().value).toEqual({ emailVerification: 'editing' });
    expect(actor.getSnapshot().context).toMatchObject({
      step: 'email-verification',
      error: { code: 'email_unavailable' },
      provenEmail: null,
      challenge: null,
      flow: 'flow-token',
    });
    // Typing clears the message; another address gets its code, and its right code goes on to the phone.
    actor.send({ type: 'CHANGE', field: 'email', value: 'nora.nys@example.org' });
    expect(actor.getSnapshot().context.error).toBeNull();
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toEqual(['nora@example.be', 'nora.nys@example.org']);
    const second = actor.getSnapshot().children.codeEntry!;
    await enterCode(second, '12345678');
    expect(actor.getSnapshot().context).toMatchObject({
      step: 'phone-verification',
      provenEmail: 'nora.nys@example.org',
      error: null,
    });
  });
});

describe('onboarding machine: a reload', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  /** A reload on `entry`, the tab and the server holding `recalled`, or the recall failing. */
  async function reload(entry: OnboardingStep, recalled: OnboardingRecalled | null | { fails: ApiFailure }) {
    const shown: string[] = [];
    const kept: Array<OnboardingMemory | null> = [];
    const sends: string[] = [];
    const actor = createActor(
      onboardingMachine.provide({
        actors: {
          recall: fromPromise(async () => {
            if (recalled && 'fails' in recalled) throw recalled.fails;
            return recalled;
          }),
          sendEmailCode: fromPromise(async ({ input: i }) => {
            sends.push(`email:${i.email}`);
            return sent;
          }),
          sendPhoneCode: fromPromise(async ({ input: i }) => {
            sends.push(`${i.channel}:${i.phone}`);
            return sent;
          }),
          codeEntry: entryWith(
            async () => ({ verified: 'email' }),
            async (request) => {
              sends.push(request.kind === 'email' ? `email:${request.email}` : `${request.channel}:${request.phone}`);
              return sent;
            },
          ),
        },
        actions: {
          show: (_, { step }) => {
            shown.push(step);
          },
          keep: (_, memory) => {
            kept.push(memory);
          },
        },
      }),
      { input: { ...input, entry } },
    ).start();
    await settle();
    return { actor, shown, kept, sends, context: () => actor.getSnapshot().context };
  }

  it('resumes each step reloaded where the server got that far, with what it holds', async () => {
    const cases: Array<[OnboardingStep, OnboardingProgress]> = [
      ['welcome', 'started'],
      ['terms-conditions', 'started'],
      ['create', 'terms_accepted'],
      ['email-verification', 'profile_saved'],
      ['onboarding-mfa', 'email_code_sent'],
      ['phone-verification', 'email_verified'],
      ['onboarding-mfa', 'phone_code_sent'],
      ['password', 'phone_verified'],
    ];
    for (const [entry, progress] of cases) {
      const { context, shown, kept } = await reload(entry, recalledAt(progress));
      expect(shown, `${entry} at ${progress}`).toEqual([entry]);
      expect(context()).toMatchObject({
        step: entry,
        flow: 'kept-token',
        source: 'card',
        welcome: { firstname: 'Nora', company: 'Brasserie' },
        error: null,
      });
      // Nothing new to keep: the tab holds it already.
      expect(kept).toEqual([]);
    }
    const onCreate = (await reload('create', recalledAt('terms_accepted'))).context();
    // The consents given, and the employer's details as the defaults of the form.
    expect(onCreate).toMatchObject({
      termsAccepted: true,
      consents: { terms: true, privacy: true, marketing: { sms: true } },
      profile: { firstname: 'Nora', lastname: 'Nys' },
      profileSaved: false,
    });
    const onEmail = (await reload('email-verification', recalledAt('profile_saved'))).context();
    expect(onEmail).toMatchObject({
      profile: { firstname: 'Nora', lastname: 'Nys-Peeters' },
      profileSaved: true,
      email: 'nora@example.be',
      provenEmail: null,
    });
    const onPhone = (await reload('phone-verification', recalledAt('email_verified'))).context();
    expect(onPhone).toMatchObject({
      provenEmail: 'nora@example.be',
      phone: '+32470101001',
      provenPhone: null,
      challenge: null,
    });
  });

  it('resumes the code screen with the code already sent, timed by the server, and sends no new one', async () => {
    const email = await reload('onboarding-mfa', recalledAt('email_code_sent'));
    const entry = email.actor.getSnapshot().children.codeEntry!.getSnapshot().context;
    expect(entry).toMatchObject({ ticket: 'kept-token', length: 8, sent: { target: 'n***@example.be' } });
    expect(entry.sent!.expiresAt - Date.now()).toBeGreaterThan(590_000);
    expect(entry.sent!.expiresAt - Date.now()).toBeLessThanOrEqual(600_000);
    await settle();
    expect(
      email.actor
        .getSnapshot()
        .children.codeEntry!.getSnapshot()
        .matches({ entering: { expiry: 'running', resend: 'ready' } }),
    ).toBe(true);
    expect(email.sends).toEqual([]);
    // A phone code on WhatsApp: the channel comes from what the tab kept, which the server does not hold.
    const phone = await reload('onboarding-mfa', recalledAt('phone_code_sent', 'card', 'whatsapp'));
    expect(phone.context()).toMatchObject({
      channel: 'whatsapp',
      challenge: { kind: 'phone', sent: { target: '+32 ••• •• •• 01' } },
    });
    await settle(); // the resend wait of 0 s is over
    phone.actor.getSnapshot().children.codeEntry!.send({ type: 'RESEND' });
    await settle();
    expect(phone.sends).toEqual(['whatsapp:+32470101001']);
  });

  it('shows the furthest step that can show when the step reloaded cannot: a step not reached is not shown', async () => {
    const cases: Array<[OnboardingStep, OnboardingRecalled, OnboardingStep]> = [
      ['password', recalledAt('started'), 'terms-conditions'],
      ['password', recalledAt('terms_accepted'), 'create'],
      ['phone-verification', recalledAt('profile_saved'), 'email-verification'],
      // The invitation's address came proven, but the person has not passed the email step yet.
      ['phone-verification', recalledAt('profile_saved', 'invitation'), 'email-verification'],
      ['onboarding-mfa', recalledAt('email_verified'), 'phone-verification'],
      ['password', recalledAt('email_code_sent'), 'onboarding-mfa'],
      ['password', recalledAt('phone_code_sent'), 'onboarding-mfa'],
      ['create', recalledAt('started'), 'terms-conditions'],
    ];
    for (const [entry, recalled, expected] of cases) {
      const { shown } = await reload(entry, recalled);
      expect(shown, `${entry} at ${recalled.state.progress}`).toEqual([expected]);
    }
  });

  it('starts over on a flow the server no longer holds, says it expired, and forgets what the tab kept', async () => {
    const { context, shown, kept } = await reload('terms-conditions', {
      fails: apiFailure(410, { code: 'onboarding_expired' }),
    });
    expect(context()).toMatchObject({ step: 'onboarding', flow: null, error: { code: 'onboarding_expired' } });
    expect(shown).toEqual(['onboarding']);
    expect(kept).toEqual([null]);
    // Nothing kept: a first visit, with nothing to say.
    const first = await reload('terms-conditions', null);
    expect(first.context()).toMatchObject({ step: 'onboarding', flow: null, error: null });
    expect(first.kept).toEqual([]);
    // The server out of reach: the start says so, and the tab keeps the flow for the next reload.
    const down = await reload('create', { fails: apiFailure(503, { code: 'database_unavailable' }) });
    expect(down.context()).toMatchObject({ step: 'onboarding', error: { code: 'database_unavailable' } });
    expect(down.kept).toEqual([]);
  });

  it('keeps the predecessor rules after a reload: Back to a step before is followed, a jump ahead starts over', async () => {
    const { actor, shown, kept } = await reload('create', recalledAt('phone_verified'));
    actor.send({ type: 'ROUTE', step: 'terms-conditions' });
    expect(actor.getSnapshot().context.step).toBe('terms-conditions');
    actor.send({ type: 'ROUTE', step: 'password' });
    expect(actor.getSnapshot().context).toMatchObject({ step: 'onboarding', flow: null });
    expect(shown.slice(0, 2)).toEqual(['create', 'terms-conditions']);
    expect(shown.at(-1)).toBe('onboarding');
    expect(kept).toEqual([null]);
  });

  it('keeps the token once the flow starts and a phone code channel once one is sent, and forgets both with the account', async () => {
    const kept: Array<OnboardingMemory | null> = [];
    const actor = createActor(
      onboardingMachine.provide({
        actors: {
          startWithInvitation: fromPromise(async () => welcome('invitation')),
          sendPhoneCode: fromPromise(async () => sent),
          codeEntry: codeEntryMachineOf<Verified, CodeRequest>().provide({
            actors: {
              check: fromPromise(async (): Promise<{ verified: 'email' | 'phone' }> => ({ verified: 'phone' })),
            },
          }),
        },
        actions: {
          keep: (_, memory) => {
            kept.push(memory);
          },
        },
      }),
      { input },
    ).start();
    actor.send({ type: 'CHOOSE', source: 'invitation' });
    actor.send({ type: 'CHANGE', field: 'invitationCode', value: 'TESS-JOIN-0001' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved' } });
    await settle();
    expect(kept).toEqual([{ flow: 'flow-token', channel: 'sms' }]);
    // Later on the phone step, after a reload.
    const resumed = createActor(
      onboardingMachine.provide({
        actors: {
          recall: fromPromise(async (): Promise<OnboardingRecalled | null> => recalledAt('email_verified')),
          sendPhoneCode: fromPromise(async () => sent),
          codeEntry: codeEntryMachineOf<Verified, CodeRequest>().provide({
            actors: {
              check: fromPromise(async (): Promise<{ verified: 'email' | 'phone' }> => ({ verified: 'phone' })),
            },
          }),
          // The password step, answered at once: the account exists.
          newPassword: fromPromise(async () => ({
            result: { outcome: 'card_activated' as const, username: 'nora@example.be', signIn: SIGNED_IN },
          })) as never,
        },
        actions: {
          keep: (_, memory) => {
            kept.push(memory);
          },
        },
      }),
      { input: { ...input, entry: 'phone-verification' } },
    ).start();
    await settle();
    resumed.send({ type: 'SET_CHANNEL', channel: 'call' });
    resumed.send({ type: 'SUBMIT' });
    await settle();
    expect(kept.at(-1)).toEqual({ flow: 'kept-token', channel: 'call' });
    const entry = resumed.getSnapshot().children.codeEntry!;
    await enterCode(entry, '12345678');
    expect(resumed.getSnapshot().context.step).toBe('confirmation');
    expect(kept.at(-1)).toBeNull();
  });
});

describe('onboarding machine: a card number past its ceiling of wrong codes', () => {
  it('takes the harder puzzle the server names for the card step, and keeps it for the next try', async () => {
    const sent: Array<string | null> = [];
    let answer: ApiFailure | null = apiFailure(400, {
      code: 'invalid_activation_code',
      message: '',
      captcha: true,
      captcha_level: 1,
    });
    const actor = createActor(
      onboardingMachine.provide({
        actors: {
          startWithCard: fromPromise(async ({ input: i }) => {
            sent.push(i.captcha);
            if (answer) throw answer;
            return welcome('card');
          }),
        },
      }),
      { input },
    ).start();
    fillCard(actor);
    expect(actor.getSnapshot().context.captchaLevel).toBe(0);
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-0' } });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ captchaLevel: 1, error: { code: 'invalid_activation_code' } });
    answer = apiFailure(400, { code: 'captcha_required', message: '', captcha: true, captcha_level: 2 });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-1' } });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ captchaLevel: 2, error: { code: 'captcha_required' } });
    // An answer that says nothing of a puzzle (a network failure) keeps the level named before.
    answer = apiFailure(0, {});
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-2' } });
    await settle();
    expect(actor.getSnapshot().context.captchaLevel).toBe(2);
    answer = null;
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-2-again' } });
    await settle();
    expect(sent).toEqual(['solved-at-0', 'solved-at-1', 'solved-at-2', 'solved-at-2-again']);
    expect(actor.getSnapshot().context.step).toBe('welcome');
  });
});

import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise } from 'xstate';
import { codeEntryMachineOf } from '../machines/codeEntry.ts';
import {
  setupMfaMachine,
  type ActivationRequest,
  type ActivationStart,
  type SetupMfaInput,
} from '../machines/setupMfa.ts';
import { report, startOf, stepsOf, walkAll, walkFrom } from './coverage.ts';
import { madePasskey, passkeyStart, setupMfaModel } from './setupMfa.model.ts';
import type { PasskeyCredential, PasskeyOptions } from '../contract/schemas.ts';
import { apiFailure } from '../contract/api.ts';
import { enterCode, refuses, settle } from './events.ts';

describe('forced MFA machine: model', () => {
  it('takes every declared transition (forced user, forced user with SMS, offered customer, from Security)', () => {
    const result = walkAll(setupMfaModel);
    console.info(report('setupMfa', result));
    expect(result.missing).toEqual([]);
  });

  it('offers the merge only on the answer to the code, never on the start of the activation', () => {
    for (const name of ['a forced user', 'an offered customer', 'from Security: phone']) {
      const start = startOf(setupMfaModel, name);
      const input = start.input as SetupMfaInput;
      const steps = stepsOf(walkFrom(setupMfaModel, start));
      const into = steps.filter(({ from, to }) => to.value === 'merging' && from.value !== 'merging');
      // Only from Security (its step-up held): at sign-in the merge would ask one, and leaving a
      // mandatory set-up signs out.
      if (!('entry' in input)) expect(into).toEqual([]);
      else expect(into.length).toBeGreaterThan(0);
      for (const { from, event } of into) {
        expect(from.value).toBe('confirmation');
        expect(event.type).toBe('xstate.done.actor.codeEntry');
      }
      // Whatever the start answers, it leads to the code, the success or back to the destination.
      for (const { from, event, to } of steps) {
        if (from.value === 'requesting' && event.type.endsWith('.startActivation'))
          expect(['confirmation', 'success', 'destination', 'skipped']).toContain(to.value);
      }
    }
  });
});

/** The start's answer: a code went to the destination. */
const activation: ActivationStart = {
  payload: 'p',
  fuzzion: false,
  data: { target: 't', expires_in: 900, resend_in: 30 },
};
/** A code entry whose check takes any code. */
const codeAccepted = codeEntryMachineOf<unknown, ActivationRequest>().provide({
  actors: { check: fromPromise(async (): Promise<unknown> => ({})) },
});

describe('forced MFA machine: behaviour', () => {
  const start = async ({ hasSms, ...input }: SetupMfaInput) => {
    const screens: string[] = [];
    let sends = 0;
    let postponed = 0;
    const clock = new SimulatedClock();
    const actor = createActor(
      setupMfaMachine.provide({
        actors: {
          remindLater: fromPromise(async () => {
            postponed++;
          }),
          // The account's methods decide: an SMS one sends the forced user to the email set-up.
          methodKinds: fromPromise(async (): Promise<string[]> => (hasSms ? ['sms'] : ['totp'])),
          startActivation: fromPromise(async (): Promise<ActivationStart> => {
            sends++;
            return activation;
          }),
          codeEntry: codeAccepted,
        },
        actions: {
          show: (_, { screen }) => {
            screens.push(screen);
          },
        },
      }),
      { input, clock },
    ).start();
    await settle();
    return { actor, screens, clock, sends: () => sends, postponed: () => postponed };
  };

  it('lets a customer who is not forced skip, and nobody else', async () => {
    const customer = await start({ forced: false, customer: true, hasSms: false });
    customer.actor.send({ type: 'SKIP' });
    await settle();
    expect(customer.actor.getSnapshot().output).toEqual({ outcome: 'skipped', voluntary: false });
    // The server keeps the "not now".
    expect(customer.postponed()).toBe(1);
    const forced = await start({ forced: true, customer: true, hasSms: false });
    forced.actor.send({ type: 'SKIP' });
    expect(forced.actor.getSnapshot().value).toBe('intro');
  });

  it('lets forced users choose a phone, an email or the app, or sends them to email when they have an SMS method; customers choose', async () => {
    const forced = await start({ forced: true, customer: false, hasSms: false });
    forced.actor.send({ type: 'ACTIVATE' });
    expect(forced.screens.at(-1)).toBe('selection');
    const email = await start({ forced: true, customer: false, hasSms: true });
    email.actor.send({ type: 'ACTIVATE' });
    expect(email.screens.at(-1)).toBe('email');
    const customer = await start({ forced: false, customer: true, hasSms: false });
    customer.actor.send({ type: 'ACTIVATE' });
    expect(customer.screens.at(-1)).toBe('selection');
  });

  it("enrols with the code sent to the destination, a phone's starting from the account's number", async () => {
    const { actor, screens } = await start({ forced: true, customer: false, knownPhone: '+32 470 44 44 40' });
    actor.send({ type: 'ACTIVATE' });
    actor.send({ type: 'CHOOSE', kind: 'sms' });
    expect(actor.getSnapshot().context.target).toBe('+32 470 44 44 40');
    actor.send({ type: 'CHANGE', value: '0470 44 44 44' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    const entry = actor.getSnapshot().children.codeEntry!;
    await enterCode(entry, '1234 5678');
    actor.send({ type: 'CONTINUE' });
    expect(screens).toEqual(['intro', 'selection', 'phone', 'confirmation', 'success']);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'enrolled', voluntary: false });
  });
});

describe('adding a method from Security', () => {
  const start = async (entry: 'selection' | 'phone' | 'email') => {
    const screens: string[] = [];
    const kinds: string[] = [];
    const actor = createActor(
      setupMfaMachine.provide({
        actors: {
          methodKinds: fromPromise(async (): Promise<string[]> => ['email']),
          startActivation: fromPromise(async ({ input }): Promise<ActivationStart> => {
            kinds.push(input.kind);
            return activation;
          }),
          codeEntry: codeAccepted,
        },
        actions: {
          show: (_, { screen }) => {
            screens.push(screen);
          },
        },
      }),
      { input: { forced: false, customer: false, entry } },
    ).start();
    await settle();
    return { actor, screens, kinds };
  };

  it('opens on the step its path names, never the intro', async () => {
    for (const entry of ['selection', 'phone', 'email'] as const) {
      const { screens } = await start(entry);
      expect(screens).toEqual([entry]);
    }
  });

  it('adds a phone by the channel chosen: SMS, call or WhatsApp', async () => {
    for (const kind of ['sms', 'call', 'whatsapp'] as const) {
      const { actor, kinds, screens } = await start('selection');
      actor.send({ type: 'CHOOSE', kind });
      actor.send({ type: 'CHANGE', value: '0470 44 44 44' });
      actor.send({ type: 'SUBMIT' });
      await settle();
      expect(kinds).toEqual([kind]);
      expect(screens).toEqual(['selection', 'phone', 'confirmation']);
    }
  });

  it('hands the authenticator to its own set-up, and Back leaves for Security', async () => {
    const app = await start('selection');
    app.actor.send({ type: 'CHOOSE', kind: 'totp' });
    expect(app.actor.getSnapshot().output).toEqual({ outcome: 'authenticator', voluntary: true });
    const back = await start('selection');
    back.actor.send({ type: 'BACK' });
    expect(back.actor.getSnapshot().output).toEqual({ outcome: 'skipped', voluntary: true });
  });

  it('goes back to Security when the step-up ran out, rather than showing an error it cannot act on', async () => {
    const actor = createActor(
      setupMfaMachine.provide({
        actors: {
          methodKinds: fromPromise(async (): Promise<string[]> => []),
          startActivation: fromPromise(refuses<ActivationStart>(403, { code: 'step_up_required', message: '' })),
        },
      }),
      { input: { forced: false, customer: false, entry: 'email' } },
    ).start();
    await settle();
    actor.send({ type: 'CHANGE', value: 'emma@example.be' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().output).toEqual({ outcome: 'skipped', voluntary: true });
  });

  it('ends enrolled and says it came from Security', async () => {
    const { actor } = await start('email');
    actor.send({ type: 'CHANGE', value: 'emma@example.be' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    await enterCode(actor.getSnapshot().children.codeEntry!, '12345678');
    actor.send({ type: 'CONTINUE' });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'enrolled', voluntary: true });
  });
});

describe('forced MFA machine: a destination another account has', () => {
  async function confirmTaken(input: SetupMfaInput) {
    const screens: string[] = [];
    const offers: string[] = [];
    const actor = createActor(
      setupMfaMachine.provide({
        actors: {
          methodKinds: fromPromise(async (): Promise<string[]> => []),
          startActivation: fromPromise(async (): Promise<ActivationStart> => ({
            payload: 'p',
            fuzzion: false,
            data: { target: '+32 ••• •• •• 44', expires_in: 900, resend_in: 30 },
          })),
          codeEntry: codeEntryMachineOf<unknown, ActivationRequest>().provide({
            actors: {
              check: fromPromise(
                refuses<unknown>(409, {
                  code: 'phone_in_use',
                  message: '',
                  fuzzion: { payload: 'offer-1', kind: 'phone', target: '+32470444444' },
                }),
              ),
            },
          }),
        },
        actions: {
          show: (_, { screen }) => {
            screens.push(screen);
          },
          offerFuzzion: (_, { payload }) => {
            offers.push(payload);
          },
        },
      }),
      { input },
    ).start();
    await settle();
    if (!input.entry) actor.send({ type: 'ACTIVATE' });
    // At sign-in, the kind is chosen first.
    if (!input.entry) actor.send({ type: 'CHOOSE', kind: 'sms' });
    actor.send({ type: 'CHANGE', value: '0470 44 44 44' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    // The start said nothing of the other account: its code went, as to any number.
    expect(actor.getSnapshot().value).toBe('confirmation');
    expect(offers).toEqual([]);
    await enterCode(actor.getSnapshot().children.codeEntry!, '12345678');
    return { actor, screens, offers };
  }

  it("is sent its code like any other, and the answer to the code leads to the merge's offer", async () => {
    const { actor, screens, offers } = await confirmTaken({ forced: false, customer: false, entry: 'phone' });
    expect(offers).toEqual(['offer-1']);
    // No set-up screen is asked for after it: the app shows the offer.
    expect(screens).toEqual(['phone', 'confirmation']);
    expect(actor.getSnapshot().value).toBe('merging');
    // Back comes to the destination, to type another.
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().value).toBe('destination');
    expect(screens.at(-1)).toBe('phone');
  });

  it('at sign-in (mandatory or offered), says the number is in use and asks another, rather than leave for a merge it could not do', async () => {
    for (const input of [
      { forced: true, customer: false },
      { forced: false, customer: true },
    ]) {
      const { actor, screens, offers } = await confirmTaken(input);
      expect(offers).toEqual([]);
      expect(actor.getSnapshot().value).toBe('destination');
      expect(actor.getSnapshot().context.error).toMatchObject({ code: 'phone_in_use' });
      expect(screens.slice(-3)).toEqual(['phone', 'confirmation', 'phone']);
    }
  });
});

describe('forced MFA machine: the code', () => {
  it('is timed from the answer, and a new one goes to the same destination once the wait is over', async () => {
    const clock = new SimulatedClock();
    const targets: string[] = [];
    const actor = createActor(
      setupMfaMachine.provide({
        actors: {
          startActivation: fromPromise(async ({ input }): Promise<ActivationStart> => {
            targets.push(input.target);
            return activation;
          }),
          // The entry sends the new code with the flow's request.
          codeEntry: codeEntryMachineOf<unknown, ActivationRequest>().provide({
            actors: {
              send: fromPromise(async ({ input }) => {
                targets.push(input.request.target);
                return { ticket: 'p2', sent: { target: 't', expires_in: 900, resend_in: 30 } };
              }),
            },
          }),
        },
      }),
      { input: { forced: true, customer: false }, clock },
    ).start();
    await settle();
    actor.send({ type: 'ACTIVATE' });
    actor.send({ type: 'CHOOSE', kind: 'sms' });
    actor.send({ type: 'CHANGE', value: '0470 44 44 44' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    const entry = () => actor.getSnapshot().children.codeEntry!;
    expect(
      entry()
        .getSnapshot()
        .matches({ entering: { expiry: 'running', resend: 'cooling' } }),
    ).toBe(true);
    clock.increment(31_000);
    entry().send({ type: 'RESEND' });
    await settle();
    expect(targets).toEqual(['0470 44 44 44', '0470 44 44 44']);
    expect(actor.getSnapshot().value).toBe('confirmation');
    // The flow keeps the new code: Back and Forward come back to it.
    expect(actor.getSnapshot().context.challenge?.payload).toBe('p2');
  });
});

describe('adding a passkey', () => {
  const start = async (
    input: SetupMfaInput,
    options: {
      noPasskeyHere?: boolean;
      create?: () => Promise<PasskeyCredential>;
      confirm?: () => Promise<{ id: number; provider: string | null }>;
    } = {},
  ) => {
    const screens: string[] = [];
    const calls = {
      created: [] as PasskeyOptions[],
      confirmed: [] as Array<{ payload: string; credential: PasskeyCredential }>,
      renamed: [] as Array<{ id: number; name: string }>,
    };
    const actor = createActor(
      setupMfaMachine.provide({
        actors: {
          methodKinds: fromPromise(async (): Promise<string[]> => ['email']),
          startPasskey: fromPromise(async () => passkeyStart),
          createPasskey: fromPromise(async ({ input }) => {
            calls.created.push(input);
            return (options.create ?? (async () => madePasskey))();
          }),
          confirmPasskey: fromPromise(async ({ input }) => {
            calls.confirmed.push(input);
            return (options.confirm ?? (async () => ({ id: 7, provider: 'iCloud Keychain' })))();
          }),
          renamePasskey: fromPromise(async ({ input }) => {
            calls.renamed.push(input);
          }),
        },
        actions: { show: (_, { screen }) => screens.push(screen) },
        guards: { noPasskeyHere: () => options.noPasskeyHere ?? false },
      }),
      { input },
    ).start();
    await settle();
    return { actor, screens, calls };
  };
  const fromSecurity: SetupMfaInput = { forced: false, customer: false, entry: 'selection' };

  it('from Security: says what happens, makes it on the word, names it (prefilled with its provider) and goes back', async () => {
    const { actor, screens, calls } = await start(fromSecurity);
    actor.send({ type: 'CHOOSE', kind: 'passkey' });
    expect(screens.at(-1)).toBe('passkey');
    // Nothing is asked of the browser before the person says so.
    expect(calls.created).toEqual([]);
    actor.send({ type: 'CREATE' });
    await settle();
    expect(calls.created).toEqual([passkeyStart.options]);
    expect(calls.confirmed).toEqual([{ payload: 'pk', credential: madePasskey }]);
    expect(screens.at(-1)).toBe('passkeyName');
    expect(actor.getSnapshot().context.name).toBe('iCloud Keychain');
    actor.send({ type: 'CHANGE', value: '  Work laptop  ' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(calls.renamed).toEqual([{ id: 7, name: 'Work laptop' }]);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'enrolled', voluntary: true });
  });

  it('takes no name as no name, refuses one over 64 characters, and may go on without one', async () => {
    for (const last of ['empty', 'skip'] as const) {
      const { actor, calls } = await start(fromSecurity, { confirm: async () => ({ id: 7, provider: null }) });
      actor.send({ type: 'CHOOSE', kind: 'passkey' });
      actor.send({ type: 'CREATE' });
      await settle();
      // An unknown authenticator: the form starts empty.
      expect(actor.getSnapshot().context.name).toBe('');
      actor.send({ type: 'CHANGE', value: 'x'.repeat(65) });
      actor.send({ type: 'SUBMIT' });
      expect(actor.getSnapshot().context.error).toEqual({ code: 'passkey_name_too_long' });
      expect(actor.getSnapshot().value).toBe('naming');
      if (last === 'empty') {
        actor.send({ type: 'CHANGE', value: '   ' });
        actor.send({ type: 'SUBMIT' });
      } else actor.send({ type: 'SKIP' });
      await settle();
      expect(calls.renamed).toEqual([]);
      expect(actor.getSnapshot().output).toEqual({ outcome: 'enrolled', voluntary: true });
    }
  });

  it('stays on its screen when the browser refuses, saying why; another try works, and Back chooses another way', async () => {
    let refusal: Error | null = Object.assign(new Error('cancelled'), { name: 'NotAllowedError' });
    const { actor, calls } = await start(fromSecurity, {
      create: async () => {
        if (refusal) throw refusal;
        return madePasskey;
      },
    });
    actor.send({ type: 'CHOOSE', kind: 'passkey' });
    actor.send({ type: 'CREATE' });
    await settle();
    expect(actor.getSnapshot().matches({ passkey: 'ready' })).toBe(true);
    expect(actor.getSnapshot().context.error).toEqual({ code: 'passkey_cancelled' });
    expect(calls.confirmed).toEqual([]);
    refusal = Object.assign(new Error('held'), { name: 'InvalidStateError' });
    actor.send({ type: 'CREATE' });
    await settle();
    expect(actor.getSnapshot().context.error).toEqual({ code: 'passkey_exists' });
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().value).toBe('selection');
    expect(actor.getSnapshot().context.error).toBeNull();
    refusal = null;
    actor.send({ type: 'CHOOSE', kind: 'passkey' });
    actor.send({ type: 'CREATE' });
    await settle();
    expect(actor.getSnapshot().value).toBe('naming');
  });

  it("says the server's refusal, and goes back to Security when the step-up ran out", async () => {
    const refused = await start(fromSecurity, {
      confirm: async () => {
        throw apiFailure(422, { code: 'passkey_refused', attempts_left: 4 });
      },
    });
    refused.actor.send({ type: 'CHOOSE', kind: 'passkey' });
    refused.actor.send({ type: 'CREATE' });
    await settle();
    expect(refused.actor.getSnapshot().context.error).toEqual({ code: 'passkey_refused' });
    expect(refused.actor.getSnapshot().matches({ passkey: 'ready' })).toBe(true);
    const expired = await start(fromSecurity, {
      confirm: async () => {
        throw apiFailure(403, { code: 'step_up_required' });
      },
    });
    expired.actor.send({ type: 'CHOOSE', kind: 'passkey' });
    expired.actor.send({ type: 'CREATE' });
    await settle();
    expect(expired.actor.getSnapshot().output).toEqual({ outcome: 'skipped', voluntary: true });
  });

  it('at sign-in, ends on the success screen; a browser without passkeys is offered none', async () => {
    const { actor, screens } = await start({ forced: true, customer: false });
    actor.send({ type: 'ACTIVATE' });
    expect(actor.getSnapshot().can({ type: 'CHOOSE', kind: 'passkey' })).toBe(true);
    actor.send({ type: 'CHOOSE', kind: 'passkey' });
    actor.send({ type: 'CREATE' });
    await settle();
    actor.send({ type: 'SKIP' });
    expect(screens.slice(-3)).toEqual(['passkey', 'passkeyName', 'success']);
    actor.send({ type: 'CONTINUE' });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'enrolled', voluntary: false });

    const old = await start(fromSecurity, { noPasskeyHere: true });
    expect(old.actor.getSnapshot().can({ type: 'CHOOSE', kind: 'passkey' })).toBe(false);
    old.actor.send({ type: 'CHOOSE', kind: 'passkey' });
    expect(old.actor.getSnapshot().value).toBe('selection');
  });

  it('reloaded on its name, goes back to Security (where the passkey is listed and renamed)', async () => {
    const { actor } = await start({ forced: false, customer: false, entry: 'passkeyName' });
    expect(actor.getSnapshot().output).toEqual({ outcome: 'skipped', voluntary: true });
  });
});

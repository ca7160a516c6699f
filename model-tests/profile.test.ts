import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, sendTo } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { UserProfile } from '../contract/schemas.ts';
import type { AddContactAnswer } from '../contract/profile.ts';
import { codeEntryMachineOf } from '../machines/codeEntry.ts';
import { profileMachine, type ContactKind, type NewContact, type ProfileStep } from '../machines/profile.ts';
import { report, stepsOf, walkAll, type walk } from './coverage.ts';
import { enterCode, refuses, settle } from './events.ts';
import { inUse, input, offerRead, profileModel, saved, withPhone } from './profile.model.ts';

const alone = profileModel.machine;
const walks = new Map<string, ReturnType<typeof walk>>();

describe('profile machine: model', () => {
  it('takes every declared transition, from each step it can start at', () => {
    const result = walkAll(profileModel);
    for (const [i, run] of result.runs.entries()) {
      const step = profileModel.starts[i]!.name;
      walks.set(step, run);
      console.info(report(`profile from ${step}`, run));
    }
    // A transition counts as taken when a walk from any of the starts takes it.
    expect(result.missing).toEqual([]);
  }, 180_000); // four walks of thousands of states each: allow a slow, busy machine

  it('offers the merge only after the code sent to the address came back, never on its start', () => {
    const credentials = walks.get('credentials');
    expect(credentials, 'the walk from edit-credentials ran').toBeDefined();
    const offering = stepsOf(credentials!).filter(({ from, event }) =>
      (
        alone.getTransitionData(from as never, event as never) as unknown as Array<{
          actions: Array<{ type?: string } | string>;
        }>
      ).some((t) => t.actions.some((a) => typeof a === 'object' && a?.type === 'offerFuzzion')),
    );
    expect(offering.length).toBeGreaterThan(0);
    // Only from the choice that the code's answer opens, by the person's choice.
    for (const { from, event } of offering) {
      expect(['MERGE', 'DECLINE']).toContain(event.type);
      expect(from.value).toEqual({ credentials: { adding: { offered: 'choosing' } } });
      expect((from.context as { offer: { payload: string } }).offer.payload).toBe('offer-1');
    }
    const opening = stepsOf(credentials!).filter(
      ({ from, to }) => JSON.stringify(to.value).includes('offered') && !JSON.stringify(from.value).includes('offered'),
    );
    expect(opening.length).toBeGreaterThan(0);
    for (const { from, event } of opening) {
      expect(event.type).toBe('xstate.done.actor.contactCode');
      expect(from.value).toEqual({ credentials: { adding: 'code' } });
      expect((event as unknown as { output: { body?: typeof inUse } }).output.body?.fuzzion.payload).toBe('offer-1');
    }
    // The start's answers (a code sent, or the caller's own address) never lead there.
    const starts = stepsOf(credentials!).filter(
      ({ from, event }) =>
        event.type.endsWith('.startContact') &&
        JSON.stringify(from.value) === JSON.stringify({ credentials: { adding: 'sending' } }),
    );
    expect(starts.length).toBeGreaterThan(0);
    for (const { to } of starts)
      expect(['typing', 'code']).toContain((to.value as { credentials: { adding: string } }).credentials.adding);
  });
});

/** The start's answer for a typed address or number: a code went there, a new one after `resendIn` s. */
const challengeFor = (typed: NewContact, resendIn = 30): AddContactAnswer => ({
  payload: 'challenge-1',
  data: {
    kind: typed.kind,
    target: typed.value,
    expires_at: '2099-01-01T00:00:00Z',
    expires_in: 900,
    resend_in: resendIn,
  },
});
/** Asks to add an address or number, types it and sends its code. */
async function addContact(
  flow: ReturnType<typeof createActor<typeof profileMachine>>,
  kind: ContactKind,
  value: string,
) {
  flow.send({ type: 'ADD_CONTACT', kind });
  flow.send({ type: 'CHANGE_NEW', value });
  flow.send({ type: 'SEND_CODE' });
  await settle();
}

describe('profile machine: behaviour', () => {
  /** The flow as the root runs it: its parent receives what it reports. */
  function start(
    step: ProfileStep,
    actors: {
      saveInfo?: () => Promise<UserProfile>;
      saveIban?: () => Promise<UserProfile>;
      deleteContact?: () => Promise<UserProfile>;
      makePrimary?: () => Promise<UserProfile>;
      /** The wait before a new code, in seconds (30 by default). */
      resendIn?: number;
      /** A new code, sent by the code entry with the same request. */
      sendAgain?: (typed: NewContact) => Promise<AddContactAnswer>;
    } = {},
  ) {
    const shown: string[] = [];
    const reported: UserProfile[] = [];
    const calls: unknown[] = [];
    const flow = profileMachine.provide({
      actors: {
        saveInfo: fromPromise(async ({ input: form }) => {
          calls.push(form);
          return (actors.saveInfo ?? (async () => saved))();
        }),
        saveIban: fromPromise(async ({ input: form }) => {
          calls.push(form);
          return (actors.saveIban ?? (async () => saved))();
        }),
        startContact: fromPromise(async ({ input: typed }) => {
          calls.push(typed);
          return challengeFor(typed, actors.resendIn);
        }),
        contactCode: codeEntryMachineOf<UserProfile, NewContact>().provide({
          actors: {
            check: fromPromise(async ({ input: typed }) => {
              calls.push(typed);
              return withPhone;
            }),
            send: fromPromise(async ({ input: { request } }) => {
              calls.push({ again: request });
              const answer = await actors.sendAgain!(request);
              return { ticket: answer.payload, sent: answer.data };
            }),
          },
        }),
        deleteContact: fromPromise(async ({ input: contact }) => {
          calls.push(contact);
          return (actors.deleteContact ?? (async () => saved))();
        }),
        makePrimary: fromPromise(async ({ input: contact }) => {
          calls.push(contact);
          return (actors.makePrimary ?? (async () => saved))();
        }),
      },
      actions: {
        show: (_, { step: to }) => {
          shown.push(to);
        },
      },
    });
    const parent = createActor(
      createMachine({
        invoke: { id: 'profile', src: flow, input: input(step) },
        on: {
          USER_UPDATED: {
            actions: ({ event }) => {
              reported.push((event as unknown as { user: UserProfile }).user);
            },
          },
          FORWARD: { actions: sendTo('profile', ({ event }) => (event as unknown as { event: never }).event) },
        },
      }),
    ).start();
    const child = () =>
      parent.getSnapshot().children.profile as unknown as ReturnType<typeof createActor<typeof profileMachine>>;
    const childState = () => child().getSnapshot();
    return { child, childState, shown, reported, calls };
  }

  it('shows the overview in place of edit-info opened cold, and opens the form from the overview', () => {
    const cold = start('editInfo');
    expect(cold.child().getSnapshot().matches('overview')).toBe(true);
    expect(cold.shown).toEqual(['overview']);
    cold.child().send({ type: 'EDIT_INFO' });
    expect(cold.child().getSnapshot().matches('editingInfo')).toBe(true);
    expect(cold.shown).toEqual(['overview', 'editInfo']);
    // Back to the overview leaves the form; Forward (edit-info from the overview) opens it again.
    cold.child().send({ type: 'ROUTE', step: 'overview' });
    expect(cold.child().getSnapshot().matches('overview')).toBe(true);
    cold.child().send({ type: 'ROUTE', step: 'editInfo' });
    expect(cold.child().getSnapshot().matches('editingInfo')).toBe(true);
  });

  it('checks the fields before sending, then saves, reports the new profile and says so on the overview', async () => {
    const { child, calls, reported, shown } = start('overview');
    child().send({ type: 'EDIT_INFO' });
    child().send({ type: 'CHANGE_INFO', field: 'firstname', value: ' ' });
    child().send({ type: 'CHANGE_INFO', field: 'birthdate', value: '2030-01-01' });
    child().send({ type: 'SUBMIT' });
    expect(child().getSnapshot().context.fieldErrors).toEqual({ firstname: 'required', birthdate: 'future' });
    expect(calls).toEqual([]);
    child().send({ type: 'CHANGE_INFO', field: 'firstname', value: 'Emmy' });
    child().send({ type: 'CHANGE_INFO', field: 'birthdate', value: '' });
    child().send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toEqual([
      { firstname: 'Emmy', lastname: 'Peeters', birthdate: '', gender: 'female', language: 'nl' },
    ]);
    expect(reported).toEqual([saved]);
    expect(child().getSnapshot().matches('overview')).toBe(true);
    expect(child().getSnapshot().context).toMatchObject({ notice: 'infoSaved', user: saved });
    expect(shown.at(-1)).toBe('overview');
  });

  it('shows the fields the server refused, and keeps the form after a failure', async () => {
    const refused = start('overview', {
      saveInfo: () =>
        Promise.reject(
          apiFailure(400, { code: 'validation_failed', fields: [{ field: 'lastname', code: 'invalid' }] } as never),
        ),
    });
    refused.child().send({ type: 'EDIT_INFO' });
    refused.child().send({ type: 'SUBMIT' });
    await settle();
    expect(refused.child().getSnapshot().matches({ editingInfo: 'form' })).toBe(true);
    expect(refused.child().getSnapshot().context.fieldErrors).toEqual({ lastname: 'invalid' });
    expect(refused.reported).toEqual([]);
  });

  it('fills the country from the IBAN typed, sends a valid IBAN with no country picked, and reports the masked one', async () => {
    const { child, calls, reported } = start('bank');
    expect(child().getSnapshot().matches('bank')).toBe(true);
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'n' });
    expect(child().getSnapshot().context.bank.country).toBe('');
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'nl91 abna 0417 1643 00' });
    expect(child().getSnapshot().context.bank.country).toBe('NL');
    // Another IBAN, another country: it follows until the person picks one.
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'BE68 5390 0754 7034' });
    expect(child().getSnapshot().context.bank.country).toBe('BE');
    child().send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toEqual([{ country: 'BE', iban: 'BE68 5390 0754 7034' }]);
    expect(reported).toEqual([saved]);
    expect(child().getSnapshot().context.notice).toBe('ibanSaved');
  });

  it("says a country picked that is not the IBAN's as such, and sends nothing until they agree", async () => {
    const { child, calls } = start('bank');
    child().send({ type: 'CHANGE_BANK', field: 'country', value: 'BE' });
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'NL91ABNA0417164300' });
    expect(child().getSnapshot().context.bank.country).toBe('BE');
    child().send({ type: 'SUBMIT' });
    expect(child().getSnapshot().context.fieldErrors).toEqual({ iban: 'iban_country_mismatch' });
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'NL91ABNA0417164301' });
    child().send({ type: 'SUBMIT' });
    expect(child().getSnapshot().context.fieldErrors).toEqual({ iban: 'iban_invalid' });
    expect(calls).toEqual([]);
    child().send({ type: 'CHANGE_BANK', field: 'country', value: 'NL' });
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'NL91ABNA0417164300' });
    child().send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toEqual([{ country: 'NL', iban: 'NL91ABNA0417164300' }]);
  });

  it("says the server's refusal of another country's IBAN as such, with the form kept", async () => {
    const { child, calls } = start('bank', {
      saveIban: () =>
        Promise.reject(apiFailure(422, { code: 'iban_country_mismatch', country: 'NL', chosen: 'BE' } as never)),
    });
    // First letters that name no country of the list leave the country as it was.
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'XX' });
    expect(child().getSnapshot().context.bank.country).toBe('');
    expect(child().getSnapshot().context.fieldErrors).toEqual({});
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'BE68539007547034' });
    child().send({ type: 'SUBMIT' });
    await settle();
    expect(calls).toEqual([{ country: 'BE', iban: 'BE68539007547034' }]);
    expect(child().getSnapshot().matches({ bank: 'ready' })).toBe(true);
    expect(child().getSnapshot().context.fieldErrors).toEqual({ iban: 'iban_country_mismatch' });
  });

  it('keeps the bank form with the failure when the server cannot save it', async () => {
    const { child } = start('bank', {
      saveIban: () => Promise.reject(apiFailure(503, { code: 'database_unavailable' } as never)),
    });
    child().send({ type: 'CHANGE_BANK', field: 'country', value: 'BE' });
    child().send({ type: 'CHANGE_BANK', field: 'iban', value: 'BE68539007547034' });
    child().send({ type: 'SUBMIT' });
    await settle();
    expect(child().getSnapshot().matches({ bank: 'ready' })).toBe(true);
    expect(child().getSnapshot().context.fieldErrors).toEqual({ bank: 'database_unavailable' });
  });

  it('adds a number by the code sent to it, and reports the profile with it', async () => {
    const { child, childState, calls, reported } = start('credentials');
    child().send({ type: 'ADD_CONTACT', kind: 'phone' });
    child().send({ type: 'SEND_CODE' });
    expect(calls).toEqual([]);
    child().send({ type: 'CHANGE_NEW', value: '+32470000001' });
    child().send({ type: 'SET_CHANNEL', channel: 'whatsapp' });
    child().send({ type: 'SEND_CODE' });
    await settle();
    expect(calls).toEqual([{ kind: 'phone', value: '+32470000001', channel: 'whatsapp' }]);
    expect(childState().matches({ credentials: { adding: 'code' } })).toBe(true);
    const entry = child().getSnapshot().children.contactCode as unknown as { send(event: unknown): void };
    await enterCode(entry, '1234 5678');
    expect(calls.at(-1)).toMatchObject({ ticket: 'challenge-1', code: '12345678' });
    expect(reported).toEqual([withPhone]);
    expect(child().getSnapshot().matches({ credentials: 'ready' })).toBe(true);
    expect(child().getSnapshot().context.notice).toBe('contactAdded');
  });

  it('sends a new code to the same number once the wait is over, and keeps the code it has when a new one cannot go', async () => {
    let fail = false;
    const { child, childState, calls } = start('credentials', {
      resendIn: 0,
      sendAgain: async (typed) => {
        if (fail) throw apiFailure(503, { code: 'delivery_failed', message: '' });
        return {
          payload: 'challenge-2',
          data: {
            kind: 'phone',
            target: typed.value,
            expires_at: '2099-01-01T00:00:00Z',
            expires_in: 900,
            resend_in: 0,
          },
        };
      },
    });
    await addContact(child(), 'phone', '+32470000001');
    await settle(); // the wait of 0 s is over
    const entry = () =>
      child().getSnapshot().children.contactCode as unknown as ReturnType<
        typeof createActor<ReturnType<typeof codeEntryMachineOf<UserProfile, NewContact>>>
      >;
    entry().send({ type: 'RESEND' });
    await settle();
    expect(calls.at(-1)).toEqual({ again: { kind: 'phone', value: '+32470000001', channel: 'sms' } });
    expect(child().getSnapshot().context.challenge?.payload).toBe('challenge-2');
    expect(entry().getSnapshot().context.ticket).toBe('challenge-2');
    await settle();
    fail = true;
    entry().send({ type: 'RESEND' });
    await settle();
    // The code already sent stays on screen, usable, with the reason.
    expect(childState().matches({ credentials: { adding: 'code' } })).toBe(true);
    expect(entry().getSnapshot().context).toMatchObject({ ticket: 'challenge-2', error: { code: 'delivery_failed' } });
  });

  /** The flow with another account's number: its code's answer carries the offer, read as `read` says. */
  function offeredFlow(read: () => Promise<ReturnType<typeof offerRead>>) {
    const offers: string[] = [];
    const calls: unknown[] = [];
    const flow = profileMachine.provide({
      actors: {
        startContact: fromPromise(async ({ input: typed }) => {
          calls.push(typed);
          return challengeFor(typed);
        }),
        contactCode: codeEntryMachineOf<UserProfile, NewContact>().provide({
          actors: {
            check: fromPromise(refuses<UserProfile>(409, inUse)),
          },
        }),
        readOffer: fromPromise(async ({ input: asked }) => {
          calls.push(asked);
          return read() as never;
        }),
        cancelOffer: fromPromise(async () => {
          calls.push('cancel');
        }),
      },
      actions: {
        show: () => {},
        changed: () => {},
        offerFuzzion: (_, { payload }) => {
          offers.push(payload);
        },
      },
    });
    const actor = createActor(flow, { input: input('credentials') }).start();
    return { actor, offers, calls };
  }
  const codeTyped = async (actor: ReturnType<typeof offeredFlow>['actor']) => {
    await addContact(actor, 'phone', '+32470000001');
    const entry = actor.getSnapshot().children.contactCode as unknown as { send(event: unknown): void };
    await enterCode(entry, '12345678');
    await settle();
  };

  it("sends another account's address its code like any other; its answer is a choice, not an error", async () => {
    const { actor, offers, calls } = offeredFlow(async () => offerRead(true, false));
    await addContact(actor, 'phone', '+32470000001');
    // The start said nothing of the other account: a code went, as to any address.
    expect(actor.getSnapshot().matches({ credentials: { adding: 'code' } })).toBe(true);
    expect(calls).toEqual([{ kind: 'phone', value: '+32470000001', channel: 'sms' }]);
    const entry = actor.getSnapshot().children.contactCode as unknown as { send(event: unknown): void };
    await enterCode(entry, '12345678');
    await settle();
    expect(calls.at(-1)).toEqual({ payload: 'offer-1' });
    expect(actor.getSnapshot().matches({ credentials: { adding: { offered: 'choosing' } } })).toBe(true);
    // No "already in use" beside it, and nothing handed on before the person chooses.
    expect(actor.getSnapshot().context).toMatchObject({
      error: null,
      challenge: null,
      offer: { payload: 'offer-1', target: '+32470000001', canDecline: true, ssoOnly: false },
    });
    expect(offers).toEqual([]);
    actor.send({ type: 'MERGE' });
    expect(offers).toEqual(['offer-1']);
    expect(actor.getSnapshot().matches({ credentials: 'ready' })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ offer: null, notice: null, error: null });
  });

  it('takes the address off the other account only where it keeps an email and a phone, through the merge screen', async () => {
    const allowed = offeredFlow(async () => offerRead(true, false));
    await codeTyped(allowed.actor);
    allowed.actor.send({ type: 'DECLINE' });
    expect(allowed.offers).toEqual(['offer-1']);

    const kept = offeredFlow(async () => offerRead(false, false));
    await codeTyped(kept.actor);
    kept.actor.send({ type: 'DECLINE' });
    expect(kept.offers).toEqual([]);
    expect(kept.actor.getSnapshot().matches({ credentials: { adding: { offered: 'choosing' } } })).toBe(true);
  });

  it('offers only another address for an account that signs in with Microsoft only, and when the offer cannot be read, no decline', async () => {
    const sso = offeredFlow(async () => offerRead(false, true));
    await codeTyped(sso.actor);
    sso.actor.send({ type: 'MERGE' });
    sso.actor.send({ type: 'DECLINE' });
    expect(sso.offers).toEqual([]);

    const unread = offeredFlow(() => Promise.reject(apiFailure(503, { code: 'database_unavailable' } as never)));
    await codeTyped(unread.actor);
    expect(unread.actor.getSnapshot().context.offer).toMatchObject({ canDecline: false, ssoOnly: false });
    unread.actor.send({ type: 'DECLINE' });
    expect(unread.offers).toEqual([]);
    unread.actor.send({ type: 'MERGE' });
    expect(unread.offers).toEqual(['offer-1']);
  });

  it('another address gives the offer up on the server, then clears the form back to typing one, with no error', async () => {
    const { actor, offers, calls } = offeredFlow(async () => offerRead(true, false));
    await codeTyped(actor);
    actor.send({ type: 'USE_ANOTHER' });
    await settle();
    expect(calls.at(-1)).toBe('cancel');
    expect(actor.getSnapshot().matches({ credentials: { adding: 'typing' } })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({
      offer: null,
      error: null,
      newContact: { kind: 'phone', value: '', channel: 'sms' },
    });
    expect(offers).toEqual([]);
  });

  it('an address already on this account is refused at the start, with no offer', async () => {
    const offers: string[] = [];
    const flow = profileMachine.provide({
      actors: {
        startContact: fromPromise(refuses<AddContactAnswer>(409, { code: 'email_unavailable' } as never)),
      },
      actions: {
        show: () => {},
        offerFuzzion: (_, { payload }) => {
          offers.push(payload);
        },
      },
    });
    const actor = createActor(flow, { input: input('credentials') }).start();
    await addContact(actor, 'email', 'emma@example.be');
    expect(actor.getSnapshot().matches({ credentials: { adding: 'typing' } })).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('email_unavailable');
    expect(offers).toEqual([]);
  });

  it("deletes only after a yes, and keeps the spec's switch error with the list", async () => {
    const { child, calls } = start('credentials', {
      makePrimary: () => Promise.reject(apiFailure(409, { code: 'primary_needs_mfa' } as never)),
    });
    child().send({ type: 'DELETE_CONTACT', contact: { kind: 'email', value: 'emma@example.be' } });
    expect(child().getSnapshot().matches({ credentials: 'confirmingDelete' })).toBe(true);
    child().send({ type: 'KEEP' });
    expect(calls).toEqual([]);
    child().send({ type: 'DELETE_CONTACT', contact: { kind: 'email', value: 'emma@example.be' } });
    child().send({ type: 'CONFIRM' });
    await settle();
    expect(calls).toEqual([{ kind: 'email', value: 'emma@example.be' }]);
    expect(child().getSnapshot().context.notice).toBe('contactDeleted');
    child().send({ type: 'MAKE_PRIMARY', contact: { kind: 'phone', value: '+32470123456' } });
    await settle();
    expect(child().getSnapshot().matches({ credentials: 'ready' })).toBe(true);
    expect(child().getSnapshot().context.error).toBe('primary_needs_mfa');
  });

  it("downloads the account's data as the file the server names, and says so", async () => {
    const saved: unknown[] = [];
    const flow = profileMachine.provide({
      actors: {
        exportData: fromPromise(async () => ({ name: 'tessera-account-2026-11-24.json', text: '{"account":{}}' })),
      },
      actions: {
        save: (_, file) => {
          saved.push(file);
        },
        show: () => {},
      },
    });
    const actor = createActor(flow, { input: input('download') }).start();
    expect(actor.getSnapshot().matches({ download: 'ready' })).toBe(true);
    actor.send({ type: 'DOWNLOAD' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await settle();
    expect(saved).toEqual([{ name: 'tessera-account-2026-11-24.json', text: '{"account":{}}' }]);
    expect(actor.getSnapshot().context.notice).toBe('downloaded');
  });
});

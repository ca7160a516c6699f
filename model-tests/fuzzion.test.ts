import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise, type ActorRefFrom } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { FuzzionAnswer, FuzzionOffer } from '../contract/fuzzion.ts';
import type { PasskeyCredential } from '../contract/schemas.ts';
import { codeEntryMachineOf, type CodeEntryOutput } from '../machines/codeEntry.ts';
import {
  fuzzionMachine,
  fuzzionTicket,
  type FuzzionInput,
  type FuzzionMemory,
  type FuzzionResend,
  type FuzzionResult,
  type MethodRequest,
} from '../machines/fuzzion.ts';
import { report, stepsOf, walkAll } from './coverage.ts';
import { enterCode, settle } from './events.ts';
import { cancelled, signed } from './mfa.model.ts';
import {
  card,
  email,
  finished,
  fuzzionModel,
  more,
  offer,
  passkey,
  passkeyStarted,
  recovery,
  result,
  sent,
  serializeState,
  sms,
  totp,
  type Ctx,
} from './fuzzion.model.ts';

const ctx = (snapshot: { context: unknown }) => snapshot.context as Ctx;
const inProving = (value: unknown) => typeof value === 'object' && value !== null && 'proving' in value;

describe('merge machine: model', () => {
  const all = walkAll(fuzzionModel);
  const steps = stepsOf(all.runs[0]!);

  it('takes every declared transition, on either screen, from an offer, from none and from a finished merge', () => {
    for (const [i, walked] of all.runs.entries())
      console.info(report(`fuzzion from ${fuzzionModel.starts[i]!.name}`, walked));
    expect(all.missing).toEqual([]);
  });

  it('succeeds only on an answer the server marked done', () => {
    const proofDone = new Set([
      'xstate.done.actor.fuzzionCode',
      'xstate.done.actor.checkPasskey',
      'xstate.done.actor.proveByPassword',
      'xstate.done.actor.finish',
    ]);
    const into = steps.filter(({ from, to }) => to.value === 'succeeded' && from.value !== 'succeeded');
    expect(into.length).toBeGreaterThan(0);
    for (const { event } of into) {
      // A finished merge this tab kept shows again (Back, reload): the outcome the server gave then.
      if (event.type === 'xstate.done.actor.recall') {
        expect((event as unknown as { output: FuzzionMemory }).output.result).toEqual(result);
        continue;
      }
      expect(proofDone.has(event.type)).toBe(true);
      const output = (event as unknown as { output: FuzzionAnswer | CodeEntryOutput<FuzzionAnswer> }).output;
      expect('result' in output ? output.result?.done : output.done).toBe(true);
    }
  });

  it('finishes without a further proof only when the offer says the code was enough', () => {
    const finishing = steps.filter(({ from, to }) => to.value === 'finishing' && from.value !== 'finishing');
    expect(finishing.length).toBeGreaterThan(0);
    for (const { from } of finishing) expect(ctx(from).offer?.enough).toBe(true);
    // When it was not enough, success came from a second factor's challenge (typed or a passkey's) or the password.
    for (const { from, event, to } of steps) {
      if (to.value === 'succeeded' && from.value !== 'succeeded' && ctx(from).offer?.enough === false) {
        expect([
          'xstate.done.actor.fuzzionCode',
          'xstate.done.actor.checkPasskey',
          'xstate.done.actor.proveByPassword',
        ]).toContain(event.type);
      }
    }
  });

  it('proves nothing before the offer is answered, and starts only a method the server named', () => {
    for (const { from, event, to } of steps) {
      // Into the proofs only from the offer's answer (or a finish the server did not take as enough).
      // (Or, on the further proofs' screen, from the offer read with the choice kept.)
      if (inProving(to.value) && !inProving(from.value))
        expect(['ACCEPT', 'DECLINE', 'xstate.done.actor.finish', 'xstate.done.actor.readOffer']).toContain(event.type);
      if (inProving(to.value) && !inProving(from.value) && event.type === 'xstate.done.actor.readOffer')
        expect([ctx(to).step, ctx(from).intentKept]).toEqual(['proofs', true]);
      if (
        JSON.stringify(to.value) === JSON.stringify({ proving: 'starting' }) &&
        JSON.stringify(from.value) === JSON.stringify({ proving: 'choosing' })
      ) {
        expect(event.type).toBe('SELECT');
        expect(ctx(from).methods.map((m) => m.id)).toContain((event as unknown as { id: number }).id);
      }
      // The password is typed only where the server said it counts.
      if (JSON.stringify(to.value) === JSON.stringify({ proving: 'password' }) && event.type === 'USE_PASSWORD')
        expect(ctx(from).passwordCounts).toBe(true);
    }
  });

  it('declines only an offer the other account can spare, and ends where Microsoft alone signs it in', () => {
    for (const { from, event, to } of steps) {
      if (event.type === 'DECLINE' && ctx(to).intent === 'decline' && ctx(from).intent !== 'decline')
        expect(ctx(from).offer?.can_decline).toBe(true);
      if (event.type === 'DECLINE' && from.value === 'offered' && ctx(from).offer?.can_decline === false)
        expect(to.value).toBe('cannotDecline');
      const code =
        (event as unknown as { error?: { code: string }; output?: CodeEntryOutput<unknown> }).error?.code ??
        (event as unknown as { output?: CodeEntryOutput<unknown> }).output?.failure?.code;
      // (An actor's answer fed to a state not running it changes nothing: the walk feeds them all.)
      if (code === 'merge_sso_only' && serializeState(from) !== serializeState(to)) expect(to.value).toBe('ssoOnly');
      // Given up is the one way on from there.
      if (ctx(to).offer?.sso_only) expect(['ssoOnly', 'cancelling', 'cancelled', 'failed']).toContain(to.value);
    }
  });

  it('leaves no state without a way on: every state the walk reaches is final (its screen links back) or has a step out', () => {
    const reached = new Map<string, boolean>();
    for (const { from, to } of steps.filter((step) => step.from.status !== 'done')) {
      const key = JSON.stringify(from.value);
      reached.set(key, reached.get(key) === true || JSON.stringify(to.value) !== key);
    }
    const stuck = [...reached].filter(([, out]) => !out).map(([state]) => state);
    expect(stuck).toEqual([]);
  });
});

describe('merge machine: behaviour', () => {
  function start(
    options: {
      offer?: FuzzionOffer;
      password?: FuzzionAnswer[];
      check?: () => Promise<FuzzionAnswer>;
      input?: FuzzionInput;
      memory?: Partial<FuzzionMemory>;
      /** The browser's answer to a passkey's request (by default, signed). */
      askPasskey?: () => Promise<PasskeyCredential>;
      /** The server's check of a passkey's answer (by default, done). */
      checkPasskey?: () => Promise<FuzzionAnswer>;
      /** This browser cannot use passkeys here. */
      noPasskeyHere?: boolean;
    } = {},
  ) {
    const calls: Array<{ actor: string; input: unknown }> = [];
    const kept: FuzzionResult[] = [];
    /** What the app was told: screens shown, choices kept, the root's news, a leave. */
    const told: unknown[] = [];
    const queue = [...(options.password ?? [finished])];
    const clock = new SimulatedClock();
    const startMethod = async (input: MethodRequest) => {
      calls.push({ actor: 'startMethod', input });
      if (input.mfaId === passkey.id) return passkeyStarted;
      return input.mfaId === email.id || input.mfaId === sms.id
        ? sent
        : {
            payload: `challenge-${input.mfaId}`,
            method: 'totp' as const,
            expires_at: '2099-01-01T00:00:00Z',
            expires_in: 300,
          };
    };
    const actor = createActor(
      fuzzionMachine.provide({
        actors: {
          recall: fromPromise(async (): Promise<FuzzionMemory> => ({
            payload: 'offer',
            result: null,
            ...options.memory,
          })),
          readOffer: fromPromise(async ({ input }) => {
            calls.push({ actor: 'readOffer', input });
            return options.offer ?? offer({ can_decline: false });
          }),
          cancel: fromPromise(async () => {
            calls.push({ actor: 'cancel', input: undefined });
          }),
          startMethod: fromPromise(async ({ input }) => startMethod(input)),
          askPasskey: fromPromise(async ({ input }) => {
            calls.push({ actor: 'askPasskey', input });
            return (options.askPasskey ?? (async () => signed))();
          }),
          checkPasskey: fromPromise(async ({ input }) => {
            calls.push({ actor: 'checkPasskey', input });
            return (options.checkPasskey ?? (async () => finished))();
          }),
          proveByPassword: fromPromise(async ({ input }) => {
            calls.push({ actor: 'proveByPassword', input });
            return queue.shift()!;
          }),
          finish: fromPromise(async ({ input }) => {
            calls.push({ actor: 'finish', input });
            return finished;
          }),
          fuzzionCode: codeEntryMachineOf<FuzzionAnswer, FuzzionResend>().provide({
            actors: {
              check: fromPromise(async ({ input }) => {
                calls.push({ actor: 'check', input });
                return (options.check ?? (async () => finished))();
              }),
              // A new code: the method started again, its new challenge in the ticket.
              send: fromPromise(async ({ input: { request } }) => {
                const answer = await startMethod(request.method);
                const ticket = fuzzionTicket({
                  payload: request.method.payload,
                  intent: request.intent,
                  challenge: answer.payload,
                });
                return { ticket, sent: answer };
              }),
            },
          }),
        },
        guards: { noPasskeyHere: () => options.noPasskeyHere === true },
        actions: {
          finished: (_, params) => {
            kept.push(params.result);
          },
          show: (_, params) => told.push({ show: params }),
          chose: (_, params) => told.push({ chose: params.intent }),
          leave: () => told.push('leave'),
          opened: ({ context }) => told.push({ opened: context.offer?.expires_at }),
          closed: () => told.push('closed'),
        },
      }),
      { input: options.input ?? { step: 'offer' }, clock },
    ).start();
    const entry = () =>
      actor.getSnapshot().children.fuzzionCode as unknown as ActorRefFrom<
        ReturnType<typeof codeEntryMachineOf<FuzzionAnswer, FuzzionResend>>
      >;
    return { actor, calls, kept, entry, clock, told };
  }

  it('shows a further proof on mfa-methods with the methods that still count, and resumes there with the choice kept', async () => {
    const { actor, entry, told } = start({ offer: offer({ methods: [email, totp] }), check: async () => more });
    await settle();
    actor.send({ type: 'DECLINE' });
    expect(told).toContainEqual({ chose: 'decline' });
    actor.send({ type: 'SELECT', id: email.id });
    await settle();
    await enterCode(entry(), '12345678');
    expect(told).toContainEqual({ show: { screen: 'proofs', methods: [totp.id] } });
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    // That screen, loaded anew: the server's offer names what counts, the choice is the one kept.
    const resumed = start({
      offer: offer({ methods: [totp] }),
      input: { step: 'proofs' },
      memory: { intent: 'decline' },
    });
    await settle();
    expect(resumed.actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(resumed.actor.getSnapshot().context).toMatchObject({ intent: 'decline', moreNeeded: true });
    // Without a choice kept, or with nothing left to prove, the offer shows first.
    for (const options of [{ memory: { intent: null } }, { offer: offer({ enough: true, methods: [] }) }]) {
      const fresh = start({ input: { step: 'proofs' }, ...options });
      await settle();
      expect(fresh.actor.getSnapshot().value).toBe('offered');
    }
  });

  it('tells the root the offer is open until its expiry, and closed once done, cancelled or gone; cancelling spends it and leaves', async () => {
    const opened = start({ offer: offer({ enough: true, methods: [] }) });
    await settle();
    expect(opened.told).toEqual([{ opened: '2099-01-01T00:00:00Z' }]);
    opened.actor.send({ type: 'ACCEPT' });
    await settle();
    expect(opened.told).toContain('closed');
    const cancelled = start({ offer: offer() });
    await settle();
    cancelled.actor.send({ type: 'ACCEPT' });
    cancelled.actor.send({ type: 'CANCEL' });
    await settle();
    expect(cancelled.calls.map((c) => c.actor)).toEqual(['readOffer', 'cancel']);
    expect(cancelled.actor.getSnapshot().value).toBe('cancelled');
    expect(cancelled.told.slice(-2)).toEqual(['closed', 'leave']);
  });

  it("starts the method /duplicated's query names once the offer is accepted, only when the server names it for that target", async () => {
    const named = start({ offer: offer(), input: { step: 'offer', target: 'other@example.be', method: sms.id } });
    await settle();
    expect(named.calls.map((c) => c.actor)).toEqual(['readOffer']);
    named.actor.send({ type: 'ACCEPT' });
    await settle();
    expect(named.calls[1]).toEqual({ actor: 'startMethod', input: { payload: 'offer', mfaId: sms.id } });
    // Another offer's target, or a method the server does not name: the chooser, nothing started.
    for (const input of [
      { step: 'offer' as const, target: 'someone@example.be', method: sms.id },
      { step: 'offer' as const, target: null, method: 99 },
    ]) {
      const ignored = start({ offer: offer(), input });
      await settle();
      ignored.actor.send({ type: 'ACCEPT' });
      await settle();
      expect(ignored.calls.map((c) => c.actor)).toEqual(['readOffer']);
      expect(ignored.actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    }
  });

  it('declining an offer the other account cannot spare says so, and asks no proof', async () => {
    const { actor, calls } = start();
    await settle();
    actor.send({ type: 'DECLINE' });
    expect(actor.getSnapshot().value).toBe('cannotDecline');
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().value).toBe('offered');
    expect(calls.map((c) => c.actor)).toEqual(['readOffer']);
  });

  it('merges at once when the code was enough (the other account has no second factor)', async () => {
    const { actor, calls, kept } = start({ offer: offer({ enough: true, methods: [] }) });
    await settle();
    actor.send({ type: 'ACCEPT' });
    await settle();
    expect(calls.map((c) => c.actor)).toEqual(['readOffer', 'finish']);
    expect(calls[1]!.input).toEqual({ payload: 'offer', intent: 'merge' });
    expect(actor.getSnapshot().value).toBe('succeeded');
    expect(kept).toEqual([result]);
  });

  it("offers the other account's passkeys: the browser signs the challenge, and its answer goes with the offer and the choice", async () => {
    const { actor, calls, kept } = start({ offer: offer({ methods: [email, passkey] }) });
    await settle();
    actor.send({ type: 'ACCEPT' });
    expect(actor.getSnapshot().context.methods).toEqual([email, passkey]);
    actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(calls.slice(1)).toEqual([
      { actor: 'startMethod', input: { payload: 'offer', mfaId: passkey.id } },
      { actor: 'askPasskey', input: passkeyStarted.passkey },
      {
        actor: 'checkPasskey',
        input: { payload: 'offer', intent: 'merge', challenge: passkeyStarted.payload, credential: signed },
      },
    ]);
    expect(actor.getSnapshot().value).toBe('succeeded');
    expect(kept).toEqual([result]);
  });

  it('a passkey that asks for more shows the further proof, as a typed answer does', async () => {
    const { actor, told } = start({ offer: offer({ methods: [passkey, totp] }), checkPasskey: async () => more });
    await settle();
    actor.send({ type: 'DECLINE' });
    actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ methods: [totp], moreNeeded: true, passkey: null });
    expect(told).toContainEqual({ show: { screen: 'proofs', methods: [totp.id] } });
  });

  it('a passkey cancelled in the browser, or refused by the server, comes back to the choice saying so; the next try asks again', async () => {
    const cancelledOnce = [() => Promise.reject(cancelled)];
    const { actor, calls } = start({
      offer: offer({ methods: [email, passkey] }),
      askPasskey: () => (cancelledOnce.shift() ?? (async () => signed))(),
      checkPasskey: () => Promise.reject(apiFailure(422, { code: 'passkey_refused', attempts_left: 4 })),
    });
    await settle();
    actor.send({ type: 'ACCEPT' });
    actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ error: { code: 'passkey_cancelled' }, passkey });
    expect(calls.map((c) => c.actor)).not.toContain('checkPasskey');
    actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(actor.getSnapshot().context.error).toMatchObject({ code: 'passkey_refused' });
    expect(calls.filter((c) => c.actor === 'startMethod')).toHaveLength(2);
    // Another way still goes: the passkey's failure is not the code's.
    actor.send({ type: 'SELECT', id: email.id });
    await settle();
    expect(actor.getSnapshot().matches({ proving: 'entering' })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ error: null, passkey: null });
  });

  it('a merge the server closes while a passkey is checked ends there; Back while the browser asks leaves the passkey', async () => {
    const closed = start({
      offer: offer({ methods: [passkey] }),
      checkPasskey: () => Promise.reject(apiFailure(409, { code: 'merge_unavailable' })),
    });
    await settle();
    closed.actor.send({ type: 'ACCEPT' });
    closed.actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(closed.actor.getSnapshot().value).toBe('failed');
    expect(closed.actor.getSnapshot().context.error).toEqual({ code: 'merge_unavailable' });
    // The browser still asking: Back stops the question (its actor ends with the state).
    const asking = start({ offer: offer({ methods: [passkey] }), askPasskey: () => new Promise(() => {}) });
    await settle();
    asking.actor.send({ type: 'ACCEPT' });
    asking.actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(asking.actor.getSnapshot().matches({ proving: { passkey: 'asking' } })).toBe(true);
    expect(asking.actor.getSnapshot().hasTag('busy')).toBe(true);
    asking.actor.send({ type: 'BACK' });
    expect(asking.actor.getSnapshot().value).toBe('offered');
    expect(asking.actor.getSnapshot().children.askPasskey).toBeUndefined();
    expect(asking.actor.getSnapshot().context.passkeyChallenge).toBeNull();
  });

  it("in a browser that cannot use passkeys here, offers none of the other account's, and ends when only passkeys would count", async () => {
    const { actor, calls } = start({ offer: offer({ methods: [email, passkey] }), noPasskeyHere: true });
    await settle();
    actor.send({ type: 'ACCEPT' });
    expect(actor.getSnapshot().context.methods).toEqual([email]);
    actor.send({ type: 'SELECT', id: passkey.id });
    await settle();
    expect(calls.map((c) => c.actor)).not.toContain('startMethod');
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    // A proof after which the server names only a passkey: nothing here can go on.
    const onlyPasskey = start({
      offer: offer({ methods: [email] }),
      check: async () => ({ ...more, mfa: [passkey] }),
      noPasskeyHere: true,
    });
    await settle();
    onlyPasskey.actor.send({ type: 'ACCEPT' });
    onlyPasskey.actor.send({ type: 'SELECT', id: email.id });
    await settle();
    await enterCode(onlyPasskey.entry(), '12345678');
    expect(onlyPasskey.actor.getSnapshot().value).toBe('failed');
    expect(onlyPasskey.actor.getSnapshot().context.error).toEqual({ code: 'merge_unavailable' });
    // Where the browser can, that passkey is the further proof.
    const passkeyNext = start({ offer: offer({ methods: [email] }), check: async () => ({ ...more, mfa: [passkey] }) });
    await settle();
    passkeyNext.actor.send({ type: 'ACCEPT' });
    passkeyNext.actor.send({ type: 'SELECT', id: email.id });
    await settle();
    await enterCode(passkeyNext.entry(), '12345678');
    expect(passkeyNext.actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(passkeyNext.actor.getSnapshot().context.methods).toEqual([passkey]);
  });

  it("never starts a passkey /duplicated's query names: the browser asks only once the person presses it", async () => {
    const { actor, calls } = start({
      offer: offer({ methods: [email, passkey] }),
      input: { step: 'offer', target: null, method: passkey.id },
    });
    await settle();
    actor.send({ type: 'ACCEPT' });
    await settle();
    expect(calls.map((c) => c.actor)).toEqual(['readOffer']);
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
  });

  it("asks for the other account's second factor when the code was not enough, and never finishes without it", async () => {
    const { actor, calls, kept, entry } = start({ offer: offer() });
    await settle();
    actor.send({ type: 'ACCEPT' });
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    // Its password does not count here, and a method it does not have is no choice.
    actor.send({ type: 'USE_PASSWORD' });
    actor.send({ type: 'SELECT', id: 99 });
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    actor.send({ type: 'SELECT', id: sms.id, channel: 'whatsapp' });
    await settle();
    expect(calls[1]).toEqual({ actor: 'startMethod', input: { payload: 'offer', mfaId: sms.id, channel: 'whatsapp' } });
    expect(entry().getSnapshot().context).toMatchObject({
      ticket: fuzzionTicket({ payload: 'offer', intent: 'merge', challenge: 'challenge-1' }),
      length: 8,
    });
    expect(entry().getSnapshot().context.sent).not.toBeNull();
    await enterCode(entry(), '1234 5678');
    expect(calls[2]).toMatchObject({
      actor: 'check',
      input: {
        ticket: fuzzionTicket({ payload: 'offer', intent: 'merge', challenge: 'challenge-1' }),
        code: '12345678',
      },
    });
    expect(actor.getSnapshot().value).toBe('succeeded');
    expect(kept).toEqual([result]);
    expect(calls.map((c) => c.actor)).not.toContain('finish');
  });

  it('reads an answer at hand by its kind: 6 digits for an authenticator, 10 letters for a recovery key, 16 digits for a card; none is sent again', async () => {
    for (const [method, length] of [
      [totp, 6],
      [recovery, 10],
      [card, 16],
    ] as const) {
      const { actor, calls, entry, clock } = start({ offer: offer({ methods: [method] }) });
      await settle();
      actor.send({ type: 'ACCEPT' });
      actor.send({ type: 'SELECT', id: method.id });
      await settle();
      expect(entry().getSnapshot().context).toMatchObject({ length, sent: null });
      clock.increment(60_000);
      entry().send({ type: 'RESEND' });
      await settle();
      expect(calls.filter((c) => c.actor === 'startMethod')).toHaveLength(1);
      expect(actor.getSnapshot().matches({ proving: 'entering' })).toBe(true);
    }
  });

  it('sends a code again to the same method once its wait is over, and Back chooses another', async () => {
    const { actor, calls, entry, clock } = start({ offer: offer() });
    await settle();
    actor.send({ type: 'ACCEPT' });
    actor.send({ type: 'SELECT', id: email.id });
    await settle();
    clock.increment(31_000);
    entry().send({ type: 'RESEND' });
    await settle();
    expect(calls.filter((c) => c.actor === 'startMethod').map((c) => c.input)).toEqual([
      { payload: 'offer', mfaId: email.id },
      { payload: 'offer', mfaId: email.id },
    ]);
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(actor.getSnapshot().context.challenge).toBeNull();
    actor.send({ type: 'BACK' });
    expect(actor.getSnapshot().value).toBe('offered');
  });

  it("a wrong answer stays on the code, and the server's list after a proof is the new choice", async () => {
    let answers: Array<() => Promise<FuzzionAnswer>> = [
      () => Promise.reject(apiFailure(422, { code: 'invalid_code', attempts_left: 2 })),
    ];
    const { actor, entry } = start({ offer: offer(), check: () => answers.shift()!() });
    await settle();
    actor.send({ type: 'ACCEPT' });
    actor.send({ type: 'SELECT', id: email.id });
    await settle();
    await enterCode(entry(), '00000000');
    expect(actor.getSnapshot().matches({ proving: 'entering' })).toBe(true);
    expect(entry().getSnapshot().context.error).toMatchObject({ code: 'invalid_code' });
    answers = [async () => more];
    await enterCode(entry(), '12345678');
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ methods: [totp], moreNeeded: true, passwordCounts: false });
  });

  it('takes the password only where the server says it counts, and sends it with the intent', async () => {
    const { actor, calls, kept } = start({ offer: offer({ methods: [email], password: true }), password: [finished] });
    await settle();
    actor.send({ type: 'ACCEPT' });
    actor.send({ type: 'USE_PASSWORD' });
    actor.send({ type: 'SUBMIT' });
    expect(calls).toHaveLength(1);
    actor.send({ type: 'TYPE_PASSWORD', value: 'Other-account-pass1!' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(calls[1]).toEqual({
      actor: 'proveByPassword',
      input: { payload: 'offer', intent: 'merge', password: 'Other-account-pass1!', captcha: null },
    });
    expect(actor.getSnapshot().value).toBe('succeeded');
    expect(actor.getSnapshot().context.password).toBe('');
    expect(kept).toEqual([result]);
  });

  it("past the other account's ceiling, asks for the puzzle at the level named and sends its solution with the password", async () => {
    const puzzle = (level: 1 | 2, code = 'captcha_required') =>
      apiFailure(400, { code, message: '', captcha: true, captcha_level: level });
    const answers: Array<() => Promise<FuzzionAnswer>> = [
      () => Promise.reject(puzzle(1, 'invalid_credentials')),
      () => Promise.reject(puzzle(2)),
      async () => finished,
    ];
    const calls: unknown[] = [];
    const actor = createActor(
      fuzzionMachine.provide({
        actors: {
          recall: fromPromise(async (): Promise<FuzzionMemory> => ({ payload: 'offer', result: null })),
          readOffer: fromPromise(async () => offer({ methods: [email], password: true })),
          proveByPassword: fromPromise(async ({ input }) => {
            calls.push(input);
            return answers.shift()!();
          }),
        },
        actions: { finished: () => {}, opened: () => {}, closed: () => {}, chose: () => {} },
      }),
      { input: { step: 'offer' } },
    ).start();
    await settle();
    actor.send({ type: 'ACCEPT' });
    actor.send({ type: 'USE_PASSWORD' });
    actor.send({ type: 'TYPE_PASSWORD', value: 'Guessed-pass1!' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    // A wrong password goes; the answer named the puzzle the next try needs.
    expect(actor.getSnapshot().context).toMatchObject({
      captchaLevel: 1,
      password: '',
      error: { code: 'invalid_credentials' },
    });
    actor.send({ type: 'TYPE_PASSWORD', value: 'Other-account-pass1!' });
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-1' } });
    await settle();
    // Refused for want of a harder puzzle: the password was not checked, so it stays.
    expect(actor.getSnapshot().context).toMatchObject({
      captchaLevel: 2,
      password: 'Other-account-pass1!',
      error: { code: 'captcha_required' },
    });
    actor.send({ type: 'SUBMIT', captcha: { error: { code: 'captcha_not_loaded' } } });
    await settle();
    expect(calls).toHaveLength(2);
    expect(actor.getSnapshot().context.error).toEqual({ code: 'captcha_not_loaded' });
    expect(actor.getSnapshot().matches({ proving: 'password' })).toBe(true);
    actor.send({ type: 'SUBMIT', captcha: { token: 'solved-at-2' } });
    await settle();
    expect(calls.map((c) => (c as { captcha: unknown }).captcha)).toEqual([null, 'solved-at-1', 'solved-at-2']);
    expect(calls.at(-1)).toEqual({
      payload: 'offer',
      intent: 'merge',
      password: 'Other-account-pass1!',
      captcha: 'solved-at-2',
    });
    expect(actor.getSnapshot().value).toBe('succeeded');
  });

  it('says so and stops where the other account signs in with Microsoft only: another address is the way on', async () => {
    const { actor, calls } = start({ offer: offer({ sso_only: true, can_decline: false, methods: [] }) });
    await settle();
    expect(actor.getSnapshot().value).toBe('ssoOnly');
    for (const type of ['ACCEPT', 'DECLINE', 'SELECT', 'USE_PASSWORD'] as const) {
      actor.send(type === 'SELECT' ? { type, id: email.id } : { type });
      expect(actor.getSnapshot().value).toBe('ssoOnly');
    }
    expect(calls.map((c) => c.actor)).toEqual(['readOffer']);
    actor.send({ type: 'CANCEL' });
    await settle();
    expect(actor.getSnapshot().value).toBe('cancelled');
    expect(calls.map((c) => c.actor)).toEqual(['readOffer', 'cancel']);
  });
});

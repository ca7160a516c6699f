import { describe, expect, it } from 'vitest';
import { SimulatedClock, createActor, fromPromise, type ActorRefFrom } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { FuzzionAnswer, FuzzionOffer } from '../contract/fuzzion.ts';
import { codeEntryMachineOf, type CodeEntryOutput } from '../machines/codeEntry.ts';
import {
  fuzzionMachine,
  fuzzionTicket,
  type FuzzionMemory,
  type FuzzionResend,
  type FuzzionResult,
  type MethodRequest,
} from '../machines/fuzzion.ts';
import { report, stepsOf, walkAll } from './coverage.ts';
import { enterCode, settle } from './events.ts';
import {
  card,
  email,
  finished,
  fuzzionModel,
  more,
  offer,
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
    // When it was not enough, success came from a second factor's challenge or the password.
    for (const { from, event, to } of steps) {
      if (to.value === 'succeeded' && from.value !== 'succeeded' && ctx(from).offer?.enough === false) {
        expect(['xstate.done.actor.fuzzionCode', 'xstate.done.actor.proveByPassword']).toContain(event.type);
      }
    }
  });

  it('proves nothing before the offer is answered, and starts only a method the server named', () => {
    for (const { from, event, to } of steps) {
      // Into the proofs only from the offer's answer (or a finish the server did not take as enough).
      if (inProving(to.value) && !inProving(from.value))
        expect(['ACCEPT', 'DECLINE', 'xstate.done.actor.finish']).toContain(event.type);
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
      if (ctx(to).offer?.sso_only) expect(['ssoOnly']).toContain(to.value);
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
    options: { offer?: FuzzionOffer; password?: FuzzionAnswer[]; check?: () => Promise<FuzzionAnswer> } = {},
  ) {
    const calls: Array<{ actor: string; input: unknown }> = [];
    const kept: FuzzionResult[] = [];
    const queue = [...(options.password ?? [finished])];
    const clock = new SimulatedClock();
    const startMethod = async (input: MethodRequest) => {
      calls.push({ actor: 'startMethod', input });
      return input.mfaId === email.id || input.mfaId === sms.id
        ? sent
        : {
            challenge: `challenge-${input.mfaId}`,
            method: 'totp',
            expires_at: '2099-01-01T00:00:00Z',
            expires_in: 300,
          };
    };
    const actor = createActor(
      fuzzionMachine.provide({
        actors: {
          recall: fromPromise(async (): Promise<FuzzionMemory> => ({ payload: 'offer', result: null })),
          readOffer: fromPromise(async ({ input }) => {
            calls.push({ actor: 'readOffer', input });
            return options.offer ?? offer({ can_decline: false });
          }),
          startMethod: fromPromise(async ({ input }) => startMethod(input)),
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
                  challenge: answer.challenge,
                });
                return { ticket, sent: answer };
              }),
            },
          }),
        },
        actions: {
          finished: (_, params) => {
            kept.push(params.result);
          },
        },
      }),
      { input: { step: 'offer' }, clock },
    ).start();
    const entry = () =>
      actor.getSnapshot().children.fuzzionCode as unknown as ActorRefFrom<
        ReturnType<typeof codeEntryMachineOf<FuzzionAnswer, FuzzionResend>>
      >;
    return { actor, calls, kept, entry, clock };
  }

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
        actions: { finished: () => {} },
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

  it('says so and stops where the other account signs in with Microsoft only', async () => {
    const { actor, calls } = start({ offer: offer({ sso_only: true, can_decline: false, methods: [] }) });
    await settle();
    expect(actor.getSnapshot().value).toBe('ssoOnly');
    expect(actor.getSnapshot().status).toBe('done');
    expect(calls.map((c) => c.actor)).toEqual(['readOffer']);
  });
});

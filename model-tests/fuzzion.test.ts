import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { FuzzionAnswer, FuzzionOffer } from '../contract/merge.ts';
import { fuzzionMachine, type FuzzionResult } from '../machines/fuzzion.ts';
import { report, stepsOf, walk } from './coverage.ts';
import { done, fail, settle } from './events.ts';

const offer = (canDecline: boolean): FuzzionOffer => ({ kind: 'email', target: 'other@example.be', proofs: ['code', 'password', 'card'], needed: 1, proven: [], can_decline: canDecline });
const result: FuzzionResult = { outcome: 'merged', emails: [{ value: 'me@example.be', primary: true }, { value: 'other@example.be', primary: false }], phones: [] };
const finished: FuzzionAnswer = { done: true, payload: 'offer', mfa: [], data: result };
const more: FuzzionAnswer = { done: false, payload: 'offer', mfa: ['code', 'card'] };
const sent = { challenge: 'challenge-1', expires_at: '2099-01-01T00:00:00Z', expires_in: 900, resend_in: 30 };
const alone = fuzzionMachine.provide({ actions: { finished: () => {} } });

const events = () => [
  { type: 'ACCEPT' }, { type: 'DECLINE' }, { type: 'BACK' }, { type: 'SUBMIT' }, { type: 'RESEND' },
  { type: 'CHOOSE', proof: 'code' }, { type: 'CHOOSE', proof: 'password' }, { type: 'CHOOSE', proof: 'card' },
  { type: 'TYPE_PASSWORD', value: '' }, { type: 'TYPE_PASSWORD', value: 'secret' }, { type: 'TYPE_CARD', value: '' }, { type: 'TYPE_CARD', value: '5065 0000' },
  done('readOffer', offer(true)), done('readOffer', offer(false)), fail('readOffer', 409, 'merge_unavailable'),
  done('sendCode', sent), fail('sendCode', 429, 'too_many_attempts'), fail('sendCode', 409, 'merge_unavailable'),
  done('fuzzionCode', { result: finished, failure: null }), done('fuzzionCode', { result: more, failure: null }),
  done('fuzzionCode', { result: null, failure: { code: 'code_expired' } }), done('fuzzionCode', { result: null, failure: { code: 'merge_unavailable' } }),
  done('proveByPassword', finished), done('proveByPassword', more), fail('proveByPassword', 400, 'invalid_credentials'), fail('proveByPassword', 409, 'merge_unavailable'),
  done('proveByCard', finished), done('proveByCard', more), fail('proveByCard', 400, 'invalid_card_number'), fail('proveByCard', 403, 'step_up_required'),
] as never;
const serializeState = ({ value, context }: { value: unknown; context: unknown }) => {
  const c = context as { offer: FuzzionOffer | null; intent: string; left: string[]; password: string; card: string; challenge: unknown; error: unknown; answer: FuzzionAnswer | null; result: unknown };
  return JSON.stringify([value, c.offer?.can_decline, c.intent, c.left, c.password, c.card, !!c.challenge, c.error, c.answer?.done, !!c.result]);
};

describe('merge machine: model', () => {
  it('takes every declared transition, from an offer, from none and from a finished merge', () => {
    const starts = [{ payload: 'offer', result: null }, { payload: null, result: null }, { payload: 'offer', result }].map((input) => {
      const walked = walk(alone, { input, events, serializeState });
      console.info(report(`fuzzion from ${input.result ? 'a result' : input.payload ? 'an offer' : 'nothing'}`, walked));
      return walked;
    });
    expect(starts[0]!.missing.filter((t) => starts.every((s) => s.missing.includes(t)))).toEqual([]);
  });

  it('reaches success only through a proof the server accepted, and proves nothing before the offer was answered', () => {
    const walked = walk(alone, { input: { payload: 'offer', result: null }, events, serializeState });
    const proofDone = new Set(['xstate.done.actor.fuzzionCode', 'xstate.done.actor.proveByPassword', 'xstate.done.actor.proveByCard']);
    for (const { from, event, to } of stepsOf(walked)) {
      if (to.value === 'succeeded' && from.value !== 'succeeded') {
        expect(proofDone.has(event.type)).toBe(true);
        const output = (event as unknown as { output: FuzzionAnswer | { result: FuzzionAnswer } }).output;
        expect('result' in output ? output.result.done : output.done).toBe(true);
      }
      // A proof's form or call is only ever entered from the proving part, after ACCEPT or DECLINE.
      const proving = (value: unknown) => typeof value === 'object' && value !== null && 'proving' in value;
      if (proving(to.value) && !proving(from.value)) expect(['ACCEPT', 'DECLINE']).toContain(event.type);
    }
  });
});

describe('merge machine: behaviour', () => {
  function start(answers: { password?: FuzzionAnswer[] } = {}) {
    const calls: Array<{ actor: string; input: unknown }> = [];
    const kept: FuzzionResult[] = [];
    const queue = [...(answers.password ?? [finished])];
    const actor = createActor(fuzzionMachine.provide({
      actors: {
        readOffer: fromPromise(async ({ input }) => { calls.push({ actor: 'readOffer', input }); return offer(false); }),
        sendCode: fromPromise(async ({ input }) => { calls.push({ actor: 'sendCode', input }); return sent; }),
        proveByPassword: fromPromise(async ({ input }) => { calls.push({ actor: 'proveByPassword', input }); return queue.shift()!; }),
        proveByCard: fromPromise(async ({ input }) => { calls.push({ actor: 'proveByCard', input }); return finished; }),
      },
      actions: { finished: (_, params) => { kept.push(params.result); } },
    }), { input: { payload: 'offer', result: null } }).start();
    return { actor, calls, kept };
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

  it('asks for the proofs the server still names, then keeps the merged account for the success screen', async () => {
    const { actor, calls, kept } = start({ password: [more, finished] });
    await settle();
    actor.send({ type: 'ACCEPT' });
    actor.send({ type: 'CHOOSE', proof: 'password' });
    actor.send({ type: 'SUBMIT' });
    expect(calls).toHaveLength(1);
    actor.send({ type: 'TYPE_PASSWORD', value: 'Other-account-pass1!' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(calls[1]).toEqual({ actor: 'proveByPassword', input: { payload: 'offer', intent: 'merge', password: 'Other-account-pass1!' } });
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ left: ['code', 'card'], moreNeeded: true, password: '' });
    actor.send({ type: 'CHOOSE', proof: 'password' });
    expect(actor.getSnapshot().matches({ proving: 'choosing' })).toBe(true);
    actor.send({ type: 'CHOOSE', proof: 'card' });
    actor.send({ type: 'TYPE_CARD', value: '5065 0000 0000 0009' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    expect(actor.getSnapshot().value).toBe('succeeded');
    expect(kept).toEqual([result]);
  });
});

import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { forcedMfaMachine, type ActivationStart, type EnrolmentInput } from '../machines/forcedMfa.ts';
import { report, walk } from './coverage.ts';

const answers = [
  { type: 'xstate.done.actor.startActivation', output: null },
  { type: 'xstate.done.actor.startActivation', output: { payload: '', fuzzion: true, data: { code: 'phone_in_use', message: 'This phone number is already in use. Please use a different one.' } } },
  { type: 'xstate.done.actor.startActivation', output: { payload: 'p', fuzzion: false, data: { target: '+32•••••••44' } } },
  { type: 'xstate.error.actor.startActivation', error: apiFailure(400, { code: 'invalid_phone', message: 'The phone number provided is invalid' }) },
  { type: 'xstate.done.actor.confirmActivation', output: {} },
  { type: 'xstate.error.actor.confirmActivation', error: apiFailure(422, { code: 'invalid_code', message: 'Your code is invalid, try again.' }) },
];

function walkFrom(input: EnrolmentInput) {
  return walk(forcedMfaMachine, {
    input,
    events: () => [
      { type: 'ACTIVATE' }, { type: 'SKIP' }, { type: 'CHOOSE', kind: 'sms' }, { type: 'CHOOSE', kind: 'email' },
      { type: 'CHANGE', value: '12345678' }, { type: 'CHANGE', value: '' }, { type: 'SUBMIT' }, { type: 'BACK' }, { type: 'CONTINUE' },
      ...answers,
    ] as never,
    serializeState: ({ value, context }) => {
      const c = context as { kind: unknown; target: string; code: string; error: unknown; challenge: unknown };
      return JSON.stringify([value, c.kind, !!c.target, !!c.code, !!c.error, !!c.challenge]);
    },
  });
}

describe('forced MFA machine: model', () => {
  it('takes every declared transition (forced user, forced user with SMS, offered customer)', () => {
    const runs = [walkFrom({ forced: true, customer: false, hasSms: false }), walkFrom({ forced: true, customer: false, hasSms: true }), walkFrom({ forced: false, customer: true, hasSms: false })];
    const missing = runs[0]!.missing.filter((t) => runs.every((r) => r.missing.includes(t)));
    const result = { ...runs[0]!, taken: runs[0]!.declared - missing.length, missing, states: runs.reduce((n, r) => n + r.states, 0) };
    console.info(report('forcedMfa', result));
    expect(missing).toEqual([]);
  });
});

describe('forced MFA machine: behaviour', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  const start = (input: EnrolmentInput) => {
    const screens: string[] = [];
    const actor = createActor(forcedMfaMachine.provide({
      actors: {
        startActivation: fromPromise(async (): Promise<ActivationStart> => ({ payload: 'p', fuzzion: false, data: { target: 't' } })),
        confirmActivation: fromPromise(async (): Promise<unknown> => ({})),
      },
      actions: { show: (_, { screen }) => { screens.push(screen); } },
    }), { input }).start();
    return { actor, screens };
  };

  it('lets a customer who is not forced skip, and nobody else', () => {
    const customer = start({ forced: false, customer: true, hasSms: false });
    customer.actor.send({ type: 'SKIP' });
    expect(customer.actor.getSnapshot().output).toEqual({ outcome: 'skipped' });
    const forced = start({ forced: true, customer: true, hasSms: false });
    forced.actor.send({ type: 'SKIP' });
    expect(forced.actor.getSnapshot().value).toBe('intro');
  });

  it('sends forced users to phone set-up, or to email when they have an SMS method; customers choose', () => {
    const phone = start({ forced: true, customer: false, hasSms: false });
    phone.actor.send({ type: 'ACTIVATE' });
    expect(phone.screens.at(-1)).toBe('phone');
    const email = start({ forced: true, customer: false, hasSms: true });
    email.actor.send({ type: 'ACTIVATE' });
    expect(email.screens.at(-1)).toBe('email');
    const customer = start({ forced: false, customer: true, hasSms: false });
    customer.actor.send({ type: 'ACTIVATE' });
    expect(customer.screens.at(-1)).toBe('selection');
  });

  it('enrols with the code sent to the destination', async () => {
    const { actor, screens } = start({ forced: true, customer: false, hasSms: false });
    actor.send({ type: 'ACTIVATE' });
    actor.send({ type: 'CHANGE', value: '0470 44 44 44' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    actor.send({ type: 'CHANGE', value: '1234 5678' });
    actor.send({ type: 'SUBMIT' });
    await settle();
    actor.send({ type: 'CONTINUE' });
    expect(screens).toEqual(['intro', 'phone', 'confirmation', 'success']);
    expect(actor.getSnapshot().output).toEqual({ outcome: 'enrolled' });
  });
});

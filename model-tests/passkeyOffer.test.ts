import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { passkeyOfferMachine, type PasskeyOfferStatus } from '../machines/passkeyOffer.ts';
import { report, walkFrom } from './coverage.ts';
import { settle } from './events.ts';
import { passkeyOfferModel } from './passkeyOffer.model.ts';

describe('passkey offer machine: model', () => {
  it('takes every declared transition', () => {
    const result = walkFrom(passkeyOfferModel);
    console.info(report('passkeyOffer', result));
    expect(result.missing).toEqual([]);
  });
});

describe('passkey offer machine: behaviour', () => {
  const start = (status: PasskeyOfferStatus, passwordSignIn = true) => {
    const calls: string[] = [];
    const signals: AbortSignal[] = [];
    const pending = (name: string) =>
      fromPromise<unknown>(({ signal }) => {
        calls.push(name);
        signals.push(signal);
        return new Promise(() => {});
      });
    const actor = createActor(
      passkeyOfferMachine.provide({
        actors: {
          offerStatus: fromPromise(async () => status),
          quietCreate: pending('quietCreate'),
          create: pending('create'),
          decline: fromPromise<unknown>(async () => {
            calls.push('decline');
          }),
        },
      }),
      { input: { passwordSignIn } },
    ).start();
    return { actor, calls, signals };
  };

  it('asks the password manager quietly where it can, and aborts the request when the screen goes', async () => {
    const { actor, calls, signals } = start({ offer: true, canCreate: true, quietCreate: true });
    await settle();
    expect(actor.getSnapshot().value).toBe('quiet');
    expect(calls).toEqual(['quietCreate']);
    actor.stop();
    expect(signals[0]!.aborted).toBe(true);
  });

  it('offers once elsewhere: "not now" is sent to the server and hides the offer', async () => {
    const { actor, calls } = start({ offer: true, canCreate: true, quietCreate: false });
    await settle();
    expect(actor.getSnapshot().value).toBe('offered');
    actor.send({ type: 'LATER' });
    await settle();
    expect(calls).toEqual(['decline']);
    expect(actor.getSnapshot().value).toBe('hidden');
  });

  it('offers nothing after a passkey sign-in, nor where the server does not offer one', async () => {
    for (const [status, passwordSignIn] of [
      [{ offer: true, canCreate: true, quietCreate: true }, false],
      [{ offer: false, canCreate: true, quietCreate: true }, true],
      [{ offer: true, canCreate: false, quietCreate: false }, true],
    ] as const) {
      const { actor, calls } = start(status, passwordSignIn);
      await settle();
      expect(actor.getSnapshot().value).toBe('hidden');
      expect(calls).toEqual([]);
    }
  });
});

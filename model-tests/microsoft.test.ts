import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import {
  microsoftLinkOf,
  microsoftMfaMachine,
  microsoftStartMachine,
  startUrl,
  type Tenant,
} from '../machines/microsoft.ts';
import { report, walkAll, type Model } from './coverage.ts';
import { refuses, settle } from './events.ts';
import { methods, microsoftMfaModel, microsoftStartModel, ONE, TWO } from './microsoft.model.ts';

/** Every start of `model` walked, each reported; a transition is missing only when every walk missed it. */
function walkEach(key: string, model: Model) {
  const result = walkAll(model);
  for (const [i, run] of result.runs.entries()) console.info(report(`${key}, ${model.starts[i]!.name}`, run));
  return result;
}

describe('Microsoft start (beta notice): model', () => {
  it('takes every declared transition, with one company and with several', () => {
    expect(walkEach('microsoftStart', microsoftStartModel).missing).toEqual([]);
  });
});

describe('Microsoft start (beta notice): behaviour', () => {
  const run = (tenants: Tenant[], redirect: string | null = null) => {
    const left: string[] = [];
    const actor = createActor(
      microsoftStartMachine.provide({
        actions: {
          leaveTo: (_, { url }) => {
            left.push(url);
          },
        },
      }),
      {
        input: { tenants, device: 'device-1', redirect },
      },
    ).start();
    return { actor, left };
  };

  it('names the one company and starts there, with the device and the target', () => {
    const { actor, left } = run(ONE, '/security');
    expect(actor.getSnapshot().context.tenant).toBe('tenant-a');
    actor.send({ type: 'CONTINUE' });
    expect(left).toEqual(['/sso/microsoft/login?tenant=tenant-a&device=device-1&redirect=%2Fsecurity']);
  });

  it('waits for the person to pick their company among several, and takes only a listed one', () => {
    const { actor, left } = run(TWO);
    actor.send({ type: 'CONTINUE' });
    expect(left).toEqual([]);
    actor.send({ type: 'CHOOSE', tenant: 'elsewhere' });
    expect(actor.getSnapshot().context.tenant).toBeNull();
    actor.send({ type: 'CHOOSE', tenant: 'tenant-b' });
    actor.send({ type: 'CONTINUE' });
    expect(left).toEqual(['/sso/microsoft/login?tenant=tenant-b&device=device-1']);
  });

  it('closes without going anywhere, and carries no target that is not ours', () => {
    const { actor, left } = run(ONE);
    actor.send({ type: 'CLOSE' });
    expect(actor.getSnapshot().status).toBe('done');
    expect(left).toEqual([]);
    expect(startUrl('t', 'd', 'https://evil.example/')).toBe('/sso/microsoft/login?tenant=t&device=d');
    expect(startUrl('t', 'd', '/login/email')).toBe('/sso/microsoft/login?tenant=t&device=d');
  });
});

describe('Microsoft second factor (/login/microsoft): model', () => {
  it('takes every declared transition, with and without a payload', () => {
    expect(walkEach('microsoftMfa', microsoftMfaModel).missing).toEqual([]);
  });
});

describe('Microsoft second factor (/login/microsoft): behaviour', () => {
  it('exchanges the payload for the second factors and hands them over', async () => {
    const handed: unknown[] = [];
    const actor = createActor(
      microsoftMfaMachine.provide({
        actors: {
          exchange: fromPromise(async ({ input }) => ({
            code: 'mfa_required' as const,
            message: '',
            mfa: { payload: input.payload, methods },
          })),
        },
        actions: {
          handOver: (_, params) => {
            handed.push(params);
          },
        },
      }),
      { input: { payload: 'payload-1' } },
    ).start();
    await settle();
    expect(handed).toEqual([{ payload: 'payload-1', methods }]);
    expect(actor.getSnapshot().value).toBe('handedOver');
  });

  it('says so when the payload is missing or refused', async () => {
    expect(
      createActor(microsoftMfaMachine, { input: { payload: null } })
        .start()
        .getSnapshot().context.error,
    ).toBe('sso_failed');
    const actor = createActor(
      microsoftMfaMachine.provide({
        actors: {
          exchange: fromPromise<never, { payload: string }>(refuses(410, { code: 'ticket_invalid' })) as never,
        },
      }),
      { input: { payload: 'spent' } },
    ).start();
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('ticket_invalid');
  });
});

describe('a sign-in for a Microsoft link', () => {
  it('is the sign-in whose target is the link, naming the company where there is one only', () => {
    expect(microsoftLinkOf('/partner/link-success', ONE)).toEqual({ company: ONE[0]!.name });
    expect(microsoftLinkOf('/partner/link-success?redirect_uri=https%3A%2F%2Fmy.example%2F', ONE)).toEqual({
      company: ONE[0]!.name,
    });
    expect(microsoftLinkOf('/partner/link-success', TWO)).toEqual({ company: null });
  });

  it('is no such sign-in for any other target, or none', () => {
    expect(microsoftLinkOf(null, ONE)).toBeNull();
    expect(microsoftLinkOf('/security', ONE)).toBeNull();
    expect(microsoftLinkOf('/partner/link-existing?ticket=t', ONE)).toBeNull();
    expect(microsoftLinkOf('https://evil.example/partner/link-success', ONE)).toBeNull();
  });
});

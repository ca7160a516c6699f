import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { MfaMethodSummary } from '../contract/baseSchemas.ts';
import { microsoftMfaMachine, microsoftStartMachine, startUrl, type Tenant } from '../machines/microsoft.ts';
import { report, walk } from './coverage.ts';
import { done, fail, settle } from './events.ts';

const ONE: Tenant[] = [{ id: 'tenant-a', name: 'Contoso' }];
const TWO: Tenant[] = [...ONE, { id: 'tenant-b', name: null }];
const methods: MfaMethodSummary[] = [{ id: 3, method: 'email', target: 'a***@contoso.example', primary: true }];

describe('Microsoft start (beta notice): model', () => {
  it('takes every declared transition, with one company and with several', () => {
    const missing: string[][] = [];
    for (const tenants of [ONE, TWO]) {
      const result = walk(microsoftStartMachine, {
        input: { tenants, device: 'device-1', redirect: null },
        events: () =>
          [
            { type: 'CHOOSE', tenant: 'tenant-b' },
            { type: 'CHOOSE', tenant: 'elsewhere' },
            { type: 'CONTINUE' },
            { type: 'CLOSE' },
          ] as never,
      });
      console.info(report(`microsoftStart, ${tenants.length} tenant(s)`, result));
      missing.push(result.missing);
    }
    expect(missing[0]!.filter((line) => missing[1]!.includes(line))).toEqual([]);
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
    const missing: string[][] = [];
    for (const payload of ['payload-1', null]) {
      const result = walk(microsoftMfaMachine, {
        input: { payload },
        events: () =>
          [
            done('exchange', { code: 'mfa_required', message: '', mfa: { payload: 'payload-1', methods } }),
            fail('exchange', 410, 'ticket_invalid'),
          ] as never,
      });
      console.info(report(`microsoftMfa, payload ${payload === null ? 'absent' : 'present'}`, result));
      missing.push(result.missing);
    }
    expect(missing[0]!.filter((line) => missing[1]!.includes(line))).toEqual([]);
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
          exchange: fromPromise<never, { payload: string }>(async () => {
            throw apiFailure(410, { code: 'ticket_invalid' });
          }) as never,
        },
      }),
      { input: { payload: 'spent' } },
    ).start();
    await settle();
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('ticket_invalid');
  });
});

import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import { LINK_SUCCESS_REDIRECT_MS } from '../contract/constants.ts';
import type { PartnerAccessAnswer, PartnerAnswer } from '../contract/schemas.ts';
import { partnerMachine, platformOf, wayOn, type PartnerInput } from '../machines/partner.ts';
import { report, walkAll } from './coverage.ts';
import { refuses, settle } from './events.ts';
import { input, partner, partnerModel, REGISTERED, TICKET_ANSWER, WAY } from './partner.model.ts';

describe('partner machine: model', () => {
  it('takes every declared transition, over every page it starts on', () => {
    const result = walkAll(partnerModel);
    for (const [i, run] of result.runs.entries())
      console.info(report(`partner from ${partnerModel.starts[i]!.name}`, run));
    console.info(`partner, all starts: ${result.taken}/${result.declared} transitions`);
    expect(result.declared).toBeGreaterThan(0);
    expect(result.missing).toEqual([]);
  });
});

describe('partner machine: behaviour', () => {
  function run(
    start: PartnerInput,
    calls: {
      read?: () => Promise<PartnerAnswer>;
      ask?: () => Promise<{ client_id: string; requested_at: string }>;
      access?: PartnerAccessAnswer['access'];
      kept?: string | null;
      link?: (ticket: string) => Promise<unknown>;
    } = {},
    clock?: SimulatedClock,
  ) {
    const left: string[] = [];
    const asked: string[] = [];
    const linked: string[] = [];
    const keeps: Array<string | null> = [];
    const actor = createActor(
      partnerMachine.provide({
        actors: {
          readPartner: fromPromise(calls.read ?? (async () => partner)),
          requestAccess: fromPromise(async ({ input: { clientId } }) => {
            asked.push(clientId);
            return (calls.ask ?? (async () => ({ client_id: clientId, requested_at: 'now' })))();
          }),
          readAccess: fromPromise(async ({ input: { clientId } }) => ({
            client_id: clientId,
            access: calls.access ?? 'none',
            requested_at: calls.access === 'requested' ? 'before' : null,
          })),
          readTicket: fromPromise(async ({ input: { ticket } }) => {
            if (ticket !== 'ticket-1') throw apiFailure(410, { code: 'sso_ticket_invalid' });
            return TICKET_ANSWER as never;
          }),
          recallTicket: fromPromise(async () => calls.kept ?? null),
          linkAccount: fromPromise(async ({ input: { ticket } }) => {
            linked.push(ticket);
            return (calls.link ? calls.link(ticket) : { data: {} }) as never;
          }),
        },
        actions: {
          leaveTo: (_, { url }) => {
            left.push(url);
          },
          keepTicket: (_, { ticket }) => {
            keeps.push(ticket);
          },
        },
      }),
      { input: start, ...(clock ? { clock } : {}) },
    ).start();
    return { actor, left, asked, linked, keeps };
  }

  it("shows the partner and goes on to the authorisation server's request, or home without one; Cancel goes home", async () => {
    const withWay = run(input('landing', `?client_id=deals-partner&redirect=${encodeURIComponent(WAY)}`));
    await settle();
    expect(withWay.actor.getSnapshot().value).toEqual({ landing: 'ready' });
    expect(withWay.actor.getSnapshot().context.scopes).toEqual(['openid', 'balance']);
    withWay.actor.send({ type: 'CONTINUE' });
    expect(withWay.left).toEqual([WAY]);

    const without = run(input('landing', '?client_id=deals-partner&redirect=https%3A%2F%2Fevil.example%2F'));
    await settle();
    without.actor.send({ type: 'CONTINUE' });
    expect(without.left).toEqual(['/user/dashboard']);

    const cancelled = run(input('landing', `?client_id=deals-partner&redirect=${encodeURIComponent(WAY)}`));
    await settle();
    cancelled.actor.send({ type: 'CANCEL' });
    expect(cancelled.left).toEqual(['/']);
  });

  it('says a partner is unknown without asking the server when the id is missing or malformed, and after a 404', async () => {
    let reads = 0;
    for (const search of ['', '?client_id=%3Cscript%3E']) {
      const { actor } = run(input('landing', search), {
        read: async () => {
          reads += 1;
          return partner;
        },
      });
      await settle();
      expect(actor.getSnapshot().value).toEqual({ landing: 'unknown' });
    }
    expect(reads).toBe(0);
    const { actor } = run(input('requestAccess'), {
      read: refuses(404, { code: 'not_found' }),
    });
    await settle();
    expect(actor.getSnapshot().value).toEqual({ requestAccess: 'unknown' });
  });

  it('sends an access request once, shows it sent, and offers to try again after a failure', async () => {
    let attempts = 0;
    const { actor, asked } = run(input('requestAccess'), {
      ask: async () => {
        attempts += 1;
        if (attempts === 1) throw apiFailure(503, { code: 'service_unavailable' });
        return { client_id: 'deals-partner', requested_at: 'then' };
      },
    });
    await settle();
    await settle();
    expect(actor.getSnapshot().value).toEqual({ requestAccess: 'asking' });
    actor.send({ type: 'SEND' });
    actor.send({ type: 'SEND' });
    await settle();
    expect(actor.getSnapshot().value).toEqual({ requestAccess: 'failed' });
    expect(actor.getSnapshot().context.error).toBe('service_unavailable');
    actor.send({ type: 'RETRY' });
    await settle();
    expect(actor.getSnapshot().value).toEqual({ requestAccess: 'sent' });
    expect(actor.getSnapshot().context.requestedAt).toBe('then');
    expect(asked).toEqual(['deals-partner', 'deals-partner']);
  });

  it('offers nothing to send to a person with access, one who asked already, or where no administrator is registered', async () => {
    for (const [access, state] of [
      ['granted', 'granted'],
      ['requested', 'sent'],
      ['unavailable', 'noAdministrator'],
    ] as const) {
      const { actor, asked } = run(input('requestAccess'), { access });
      await settle();
      await settle();
      expect(actor.getSnapshot().value, access).toEqual({ requestAccess: state });
      actor.send({ type: 'SEND' });
      expect(asked).toEqual([]);
    }
    const late = run(input('requestAccess'), { ask: refuses(409, { code: 'access_request_unavailable' }) });
    await settle();
    await settle();
    late.actor.send({ type: 'SEND' });
    await settle();
    expect(late.actor.getSnapshot().value).toEqual({ requestAccess: 'noAdministrator' });
  });

  it('says nothing was linked when no Microsoft sign-in was waiting, and goes on all the same', async () => {
    const clock = new SimulatedClock();
    const nothing = run(input('linkSuccess', ''), { kept: null }, clock);
    await settle();
    expect(nothing.actor.getSnapshot().value).toEqual({ linkSuccess: 'nothingLinked' });
    expect(nothing.linked).toEqual([]);
    clock.increment(LINK_SUCCESS_REDIRECT_MS);
    expect(nothing.left).toEqual(['/user/dashboard']);
  });

  it('goes on from the success after exactly LINK_SUCCESS_REDIRECT_MS, to a registered redirect_uri only', async () => {
    const clock = new SimulatedClock();
    const registered = run(
      input('linkSuccess', `?redirect_uri=${encodeURIComponent(REGISTERED)}`),
      { kept: 'ticket-1' },
      clock,
    );
    await settle();
    clock.increment(LINK_SUCCESS_REDIRECT_MS - 1);
    expect(registered.left).toEqual([]);
    clock.increment(1);
    expect(registered.left).toEqual([REGISTERED]);

    const other = new SimulatedClock();
    const unregistered = run(
      input('linkSuccess', `?redirect_uri=${encodeURIComponent('https://evil.example/')}`),
      {},
      other,
    );
    await settle();
    unregistered.actor.send({ type: 'GO' });
    expect(unregistered.left).toEqual(['/user/dashboard']);
  });

  it('shows who signed in with Microsoft, keeps the ticket for the sign-in, and links it at the success', async () => {
    const existing = run(input('linkExisting', '?ticket=ticket-1'));
    await settle();
    expect(existing.actor.getSnapshot().value).toEqual({ linkExisting: 'identified' });
    expect(existing.actor.getSnapshot().context.identity?.tenant.name).toBe('Contoso');
    expect(existing.keeps).toEqual(['ticket-1']);

    const success = run(input('linkSuccess', ''), { kept: 'ticket-1' });
    await settle();
    await settle();
    expect(success.linked).toEqual(['ticket-1']);
    expect(success.actor.getSnapshot().value).toEqual({ linkSuccess: 'shown' });
    expect(success.keeps).toEqual([null]);
  });

  it('says a spent ticket is spent, offers Microsoft again without one, and does not go on after a refused link', async () => {
    const spent = run(input('linkExisting', '?ticket=other'));
    await settle();
    expect(spent.actor.getSnapshot().value).toEqual({ linkExisting: 'invalid' });
    expect(spent.actor.getSnapshot().context.error).toBe('sso_ticket_invalid');
    expect(run(input('linkExisting', '')).actor.getSnapshot().value).toEqual({ linkExisting: 'noTicket' });

    const taken = run(input('linkSuccess', ''), {
      kept: 'ticket-1',
      link: refuses(409, { code: 'sso_identity_taken' }),
    });
    await settle();
    await settle();
    expect(taken.actor.getSnapshot().value).toEqual({ linkSuccess: 'failed' });
    expect(taken.actor.getSnapshot().context.error).toBe('sso_identity_taken');
    expect(taken.left).toEqual([]);
  });

  it('carries the redirect_uri from link-existing on to the success', () => {
    const actor = createActor(partnerMachine, {
      input: input('linkExisting', `?redirect_uri=${encodeURIComponent(REGISTERED)}`),
    }).start();
    expect(actor.getSnapshot().context.linkTo).toBe(
      `/partner/link-success?redirect_uri=${encodeURIComponent(REGISTERED)}`,
    );
    expect(
      createActor(partnerMachine, { input: input('linkExisting', '') })
        .start()
        .getSnapshot().context.linkTo,
    ).toBe('/partner/link-success');
  });

  it("keeps only the authorisation server's requests as a way on, and names the platform of a destination", () => {
    expect(wayOn(`?redirect=${encodeURIComponent(WAY)}`)).toBe(WAY);
    expect(wayOn(`?redirect=${encodeURIComponent('/oidc/auth?client_id=x&scope=openid')}`)).toBe(
      '/oidc/auth?client_id=x&scope=openid',
    );
    for (const bad of [
      '//evil.example/',
      'https://evil.example/',
      '/user/dashboard',
      '/oidc/interaction/../../x',
      '/oidc/auth',
    ]) {
      expect(wayOn(`?redirect=${encodeURIComponent(bad)}`), bad).toBeNull();
    }
    expect(platformOf('https://my.tessera.example/x', 'account.tessera.example')).toBe('consumer');
    expect(platformOf('https://client.tessera.example/', 'account.tessera.example')).toBe('clientArea');
    expect(platformOf('/user/dashboard', 'account.tessera.example')).toBe('account');
    expect(platformOf('http://client.localhost:3000/auth/callback', 'account.localhost:3300')).toBe('clientArea');
    expect(platformOf('https://deals.partner.example/', 'account.tessera.example')).toBe('default');
  });
});

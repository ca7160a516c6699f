// The partner pages' model: what its test walks and the testers' paths follow.
import type { PartnerAnswer } from '../contract/schemas.ts';
import { partnerMachine, type PartnerInput, type PartnerStep } from '../machines/partner.ts';
import type { Model } from './coverage.ts';
import { client } from './consent.model.ts';
import { done, fail } from './events.ts';

export const partner: PartnerAnswer = { client, scopes: ['openid', 'balance'] };
export const REGISTERED = 'https://my.tessera.example/auth/callback';
export const WAY = '/oidc/interaction/abc123';
export const STEPS: PartnerStep[] = ['landing', 'requestAccess', 'noAccount', 'linkExisting', 'linkSuccess'];
export const TICKET_ANSWER = {
  provider: 'microsoft',
  tenant: { id: 't1', name: 'Contoso' },
  email: 'ann@contoso.example',
  name: 'Ann',
  expires_at: '2026-11-24T06:15:00.000Z',
};
export const input = (step: PartnerStep, search = '?client_id=deals-partner'): PartnerInput => ({
  step,
  search,
  redirectTargets: [REGISTERED],
});

const EVENTS = [
  { type: 'CONTINUE' },
  { type: 'CANCEL' },
  { type: 'SEND' },
  { type: 'RETRY' },
  { type: 'GO' },
  done('readPartner', partner),
  fail('readPartner', 404, 'not_found'),
  fail('readPartner', 0, 'network_error'),
  done('requestAccess', { client_id: 'deals-partner', requested_at: '2026-11-24T06:00:00.000Z' }),
  fail('requestAccess', 409, 'access_request_unavailable'),
  fail('requestAccess', 0, 'network_error'),
  done('readAccess', { client_id: 'deals-partner', access: 'none', requested_at: null }),
  done('readAccess', { client_id: 'deals-partner', access: 'granted', requested_at: null }),
  done('readAccess', { client_id: 'deals-partner', access: 'requested', requested_at: '2026-11-24T06:00:00.000Z' }),
  done('readAccess', { client_id: 'deals-partner', access: 'unavailable', requested_at: null }),
  fail('readAccess', 404, 'not_found'),
  fail('readAccess', 0, 'network_error'),
  { type: 'xstate.after.LINK_SUCCESS_REDIRECT.partner.linkSuccess.shown' },
  { type: 'xstate.after.LINK_SUCCESS_REDIRECT.partner.linkSuccess.nothingLinked' },
  done('readTicket', TICKET_ANSWER),
  fail('readTicket', 410, 'sso_ticket_invalid'),
  done('recallTicket', 'ticket-1'),
  done('recallTicket', null),
  fail('recallTicket', 0, 'network_error'),
  done('linkAccount', { data: {} }),
  fail('linkAccount', 409, 'sso_identity_taken'),
];

/** Every page it starts on: each step, and a landing, a request and a link with less to go on. */
const STARTS: PartnerInput[] = [
  ...STEPS.map((step) => input(step)),
  input('landing', ''),
  input('requestAccess', '?client_id=%00'),
  input('linkExisting', '?ticket=ticket-1'),
];

export const partnerModel: Model = {
  machine: partnerMachine,
  starts: STARTS.map((start) => ({ name: `${start.step}${start.search ? ` ${start.search}` : ''}`, input: start })),
  events: () => EVENTS,
  serializeState: ({ value, context }) => {
    const c = context as { error: unknown; requestedAt: unknown; destination: string };
    return JSON.stringify([value, c.error, c.requestedAt, c.destination]);
  },
};

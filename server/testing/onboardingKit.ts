// Helpers for the onboarding tests: cards and invitations of their own (the seeded ones stay for
// the browser tests), and the calls of a flow, step by step.
import { expect } from 'vitest';
import { nowIso } from '../db/index.ts';
import { createInvitation } from '../invitations/create.ts';
import { activationCodeHash } from '../methods/activation-code.ts';
import { newId } from '../sessions/tokens.ts';
import type { TestServer } from './harness.ts';
import { codeIn } from './peers.ts';

let counter = 0;
/** Eight digits no seeded card has (theirs start 0000) and no other test process makes: a 9, this
 * process's id, and a counter. Before, a process id and a count could spell a demo card's number. */
const next = () => `9${String(process.pid % 10_000).padStart(4, '0')}${String(++counter % 1000).padStart(3, '0')}`;

/** A card waiting for its holder, with made-up holder details unless told otherwise. */
export async function makeCard(server: TestServer, options: { status?: 'issued' | 'blocked'; holder?: boolean } = {}) {
  const n = next();
  const card = {
    number: `50650000${n}`,
    activationCode: `A${n.slice(-5)}`,
    email: `new.${n}@example.be`,
    phone: `+32472${n.slice(-6)}`,
  };
  const holder = options.holder ?? true;
  await server.ctx.db
    .insertInto('cards')
    .values({
      id: newId(),
      number: card.number,
      user_id: null,
      activated_at: null,
      created_at: nowIso(),
      status: options.status ?? 'issued',
      activation_code_hash: activationCodeHash(server.ctx.config.secretKey, card.number, card.activationCode),
      holder_firstname: holder ? 'Nina' : null,
      holder_lastname: holder ? `Nieuw ${n}` : null,
      holder_email: holder ? card.email : null,
      holder_phone: holder ? card.phone : null,
      holder_language: holder ? 'nl' : null,
      company: holder ? 'Test Company' : null,
      beneficiary_id: holder ? `U-T${n}` : null,
    })
    .execute();
  return card;
}

export async function makeInvitation(
  server: TestServer,
  options: { expired?: boolean; customerUserId?: string; mfaForced?: boolean } = {},
) {
  const n = next();
  // An expired one was made two days ago, good for one.
  const made = Date.now() - (options.expired ? 2 * 24 * 3600 * 1000 : 0);
  return createInvitation(
    server.ctx.db,
    server.ctx.config.secretKey,
    {
      email: `invited.${n}@example.be`,
      firstname: 'Iris',
      lastname: `Invited ${n}`,
      language: 'fr',
      company: 'Invite Corp',
      customerUserId: options.customerUserId ?? null,
      mfaCustomer: options.customerUserId !== undefined,
      mfaForced: options.mfaForced ?? false,
      days: 1,
    },
    made,
  );
}

export type Peers = {
  mails: Array<{ to: string; raw: string }>;
  messages: Array<{ to: string; text: string; channel: string }>;
};

export function onboardingClient(server: TestServer, peers: Peers, device = 'onboarding-device-01') {
  const headers = { 'x-device-id': device };
  /** `from`: the client address the request comes from (127.0.0.1 unless a test plays a stranger). */
  const post = (path: string, payload: object, from?: string) =>
    server.app.inject({
      method: 'POST',
      url: `/api/onboarding/${path}`,
      headers,
      payload,
      ...(from ? { remoteAddress: from } : {}),
    });
  const api = {
    post,
    card: (cardNumber: string, activationCode: string, from?: string) =>
      post('card', { cardNumber, activationCode }, from),
    invitation: (code: string) => post('invitation', { code }),
    terms: (flow: string, accept = true) =>
      post('terms', { flow, terms: accept, privacy: accept, marketing: { email: true, sms: false, partners: false } }),
    profile: (flow: string, firstname = 'Nina', lastname = 'Nieuw') => post('profile', { flow, firstname, lastname }),
    email: (flow: string, email: string) => post('email', { flow, email }),
    phone: (flow: string, phone: string, channel?: string) =>
      post('phone', { flow, phone, ...(channel ? { channel } : {}) }),
    verify: (flow: string, code: string) => post('verify', { flow, code }),
    /** `language`: the one the person reads as they create the account. */
    password: (flow: string, password: string, confirmation = password, language = 'nl') =>
      post('password', { flow, password, confirmation, language }),
    state: (flow: string) => post('state', { flow }),
    /** The newest code the email or phone received. */
    codeFor(target: string): string {
      const texts = [
        ...peers.mails.filter((m) => m.to === target).map((m) => m.raw),
        ...peers.messages.filter((m) => m.to === target).map((m) => m.text),
      ];
      expect(texts.length, `a code for ${target}`).toBeGreaterThan(0);
      return codeIn(texts.at(-1)!);
    },
    /** Card → terms → details → email code → phone code: ready for the password. */
    async throughPhone(card: {
      number: string;
      activationCode: string;
      email: string;
      phone: string;
    }): Promise<string> {
      const started = await api.card(card.number, card.activationCode);
      expect(started.statusCode).toBe(201);
      const flow = started.json().flow as string;
      expect((await api.terms(flow)).statusCode).toBe(204);
      expect((await api.profile(flow)).statusCode).toBe(204);
      expect((await api.email(flow, card.email)).json()).toMatchObject({ verified: false });
      expect((await api.verify(flow, api.codeFor(card.email))).json()).toEqual({ verified: 'email' });
      expect((await api.phone(flow, card.phone)).json()).toMatchObject({ verified: false });
      expect((await api.verify(flow, api.codeFor(card.phone))).json()).toEqual({ verified: 'phone' });
      return flow;
    },
  };
  return api;
}

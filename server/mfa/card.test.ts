import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CARDS, DEMO_MFA_USERS, DEMO_PASSWORD } from '../seed/demo.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();
const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;

describe.each(kinds)('card challenge on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  it("accepts the number of the user's own activated card, and only that", async () => {
    const headers = { 'x-device-id': 'card-device-0001' };
    const login = (
      await server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers,
        payload: { username: kato.email, password: DEMO_PASSWORD },
      })
    ).json();
    const card = (login.mfa.methods as Array<{ id: number; method: string }>).find((m) => m.method === 'card')!;
    // It names the card by its last four digits.
    expect(card).toMatchObject({ card_endings: [DEMO_CARDS[0]!.number.slice(-4)] });
    const started = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${card.id}&payload=${login.mfa.payload}`,
      headers,
    });
    expect(started.statusCode).toBe(200);
    expect(started.json().resend_at).toBeUndefined();
    const verify = (code: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/mfa/sudo',
        headers,
        payload: { payload: started.json().payload, code },
      });
    // Another holder's card, or a card that is not this user's, is a wrong answer.
    await server.ctx.db
      .insertInto('cards')
      .values({
        id: crypto.randomUUID(),
        number: '5065000000000099',
        user_id: null,
        activated_at: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    expect((await verify('5065000000000099')).json().code).toBe('invalid_code');
    const right = await verify(DEMO_CARDS[0]!.number);
    expect(right.statusCode).toBe(200);
    expect(right.json().access_token).toBeTruthy();
    const auth = { ...headers, authorization: `Bearer ${right.json().access_token}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/mfa/status', headers: auth })).json()).toEqual({
      sudo: true,
      single: false,
      need_card: false,
      enrolment: 'none',
      passkey_offer: true,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, type TestServer } from '../testing/harness.ts';
import { useServerWithPeers, type SmsProvider, type Smtp } from '../testing/peerServer.ts';
import { codeIn } from '../testing/peers.ts';

const kinds = await databaseKinds();
const claire = DEMO_USERS.find((u) => u.key === 'customer')!;
const luc = DEMO_USERS.find((u) => u.key === 'luxembourg')!;

describe.each(kinds)('forgotten password on %s', (kind) => {
  let server: TestServer;
  let smtp: Smtp;
  let sms: SmsProvider;
  const headers = { 'x-device-id': 'forgot-device-01' };
  useServerWithPeers(kind, {}, (peers) => {
    ({ server, smtp, sms } = peers);
  });

  const forgot = (username: string, channel?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers,
      payload: { username, ...(channel ? { channel } : {}) },
    });
  const verify = (payload: string, code: string) =>
    server.app.inject({ method: 'POST', url: '/api/user/forgot-password/verify', headers, payload: { payload, code } });

  it('answers the same for an existing and an unknown account, and mails only the existing one', async () => {
    const sent = smtp.mails.length;
    const known = await forgot(claire.email);
    const unknown = await forgot('nobody.here@example.com');
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(Object.keys(known.json()).sort()).toEqual(Object.keys(unknown.json()).sort());
    // Both carry the code's timers, for the countdown on the code screen: the same for both.
    expect(known.json()).toMatchObject({
      recipient: ['c***@example.com'],
      technology: 'EMAIL',
      expires_in: 900,
      resend_in: 30,
    });
    expect(unknown.json()).toMatchObject({
      recipient: ['n***@example.com'],
      technology: 'EMAIL',
      expires_in: 900,
      resend_in: 30,
    });
    expect(smtp.mails.length).toBe(sent + 1);
    // A wrong code and an unknown payload read the same.
    expect((await verify(unknown.json().payload, '12345678')).json().code).toBe('invalid_code');
    expect(
      (
        await verify(known.json().payload, '00000000' === codeIn(smtp.mails.at(-1)!.raw) ? '11111111' : '00000000')
      ).json().code,
    ).toBe('invalid_code');
  });

  it('trades the right code for a ticket that sets a new password and ends every session', async () => {
    const session = (
      await server.app.inject({
        method: 'POST',
        url: '/api/token',
        headers,
        payload: { username: luc.email, password: DEMO_PASSWORD },
      })
    ).json().access_token;
    const started = await forgot('621 123 456', 'whatsapp');
    expect(started.json()).toMatchObject({ technology: 'whatsapp' });
    // The Luxembourg number was read in the Belgian variant as a Belgian one: it is not Luc's.
    const lu = await server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers: { ...headers, host: 'account.lu.localhost:3000' },
      payload: { username: '621 123 456', channel: 'whatsapp' },
    });
    expect(sms.messages.at(-1)).toMatchObject({ channel: 'whatsapp', to: luc.phone });
    const ticket = await verify(lu.json().payload, codeIn(sms.messages.at(-1)!.text));
    expect(ticket.statusCode).toBe(200);
    const reset = await server.app.inject({
      method: 'POST',
      url: '/api/user/reset-password',
      headers,
      payload: { payload: ticket.json().payload, password: 'Lux-new-pass-2026', confirmation: 'Lux-new-pass-2026' },
    });
    expect(reset.statusCode).toBe(204);
    expect(
      (
        await server.app.inject({
          method: 'GET',
          url: '/api/user',
          headers: { ...headers, authorization: `Bearer ${session}` },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await server.app.inject({
          method: 'POST',
          url: '/api/token',
          headers,
          payload: { username: luc.email, password: 'Lux-new-pass-2026' },
        })
      ).statusCode,
    ).toBe(200);
    void started;
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../seed/demo.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { codeIn } from '../testing/peers.ts';

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;

describe('dev outbox', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.stop());

  it('keeps what would have been sent, newest first, escaped in HTML', async () => {
    const headers = { 'x-device-id': 'outbox-device-01' };
    const login = await server.app.inject({
      method: 'POST',
      url: '/api/token',
      headers,
      payload: { username: mila.email, password: DEMO_PASSWORD },
    });
    const sms = (login.json().mfa.methods as Array<{ id: number; method: string }>).find((m) => m.method === 'sms')!;
    const started = await server.app.inject({
      method: 'GET',
      url: `/api/mfa/sudo?mfaId=${sms.id}&payload=${login.json().mfa.payload}&channel=call`,
      headers,
    });
    expect(started.statusCode).toBe(200);
    const outbox = (await server.app.inject({ method: 'GET', url: '/dev/outbox.json' })).json().messages;
    expect(outbox[0]).toMatchObject({ channel: 'call', recipient: mila.phone });
    const code = codeIn(outbox[0].body);
    const signedIn = await server.app.inject({
      method: 'POST',
      url: '/api/mfa/sudo',
      headers,
      payload: { payload: started.json().payload, code },
    });
    expect(signedIn.statusCode).toBe(200);

    await server.ctx.outbox.enqueue(server.ctx.db, {
      channel: 'email',
      to: 'x@example.be',
      subject: '<script>alert(1)</script>',
      body: 'a & b',
      ttlSeconds: 60,
    });
    await server.ctx.outbox.drain();
    const newest = (await server.app.inject({ method: 'GET', url: '/dev/outbox.json' })).json().messages;
    expect(newest.map((m: { recipient: string }) => m.recipient).slice(0, 2)).toEqual(['x@example.be', mila.phone]);
    const page = await server.app.inject({ method: 'GET', url: '/dev/outbox' });
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('&#60;script&#62;');
    expect(page.body).not.toContain('<script>alert');
    expect(page.body.indexOf('x@example.be')).toBeLessThan(page.body.indexOf(mila.phone));
  });

  it('runs a step before every pass, and a step given a period at most once in that period', async () => {
    let every = 0;
    let seldom = 0;
    server.ctx.outbox.addStep(async () => {
      every++;
    });
    server.ctx.outbox.addStep(async () => {
      seldom++;
    }, 60_000);
    for (let pass = 0; pass < 3; pass++) await server.ctx.outbox.drain();
    expect(every).toBeGreaterThanOrEqual(3);
    expect(seldom).toBe(1);
  });

  it('does not exist in production', async () => {
    const production = await startTestServer(
      'sqlite',
      { NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40) },
      { seed: false },
    );
    try {
      expect((await production.app.inject({ method: 'GET', url: '/dev/outbox.json' })).statusCode).toBe(404);
      // Without SMTP or a provider, production cannot send: the message waits for a retry, and says why.
      await production.ctx.outbox.enqueue(production.ctx.db, {
        channel: 'sms',
        to: '+32470000000',
        subject: 's',
        body: 'b',
        ttlSeconds: 60,
      });
      await production.ctx.outbox.drain();
      const waiting = await production.ctx.db.selectFrom('message_outbox').selectAll().executeTakeFirstOrThrow();
      expect(waiting).toMatchObject({ attempts: 1, failed_at: null });
      expect(waiting.last_error).toMatch(/no delivery configured/);
    } finally {
      await production.stop();
    }
  });
});

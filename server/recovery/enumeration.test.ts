// The forgotten password from an attacker's side: a real account and an unknown one answer with the
// same status and body, whatever the mail server does; and a stranger who knows an address can
// neither lock its owner out of the reset nor spoil the owner's code.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, skipResendWaits } from '../testing/mfaKit.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();
const headers = { 'x-device-id': 'enumeration-dev-1' };

/** A mail server that takes the connection and never says a word: a sender that hangs. */
async function startSilentSmtp(): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function forgot(server: TestServer, username: string, from = '127.0.0.1') {
  return server.app.inject({
    method: 'POST',
    url: '/api/user/forgot-password',
    headers,
    payload: { username },
    remoteAddress: from,
  });
}
function verify(server: TestServer, payload: string, code: string, from = '127.0.0.1') {
  return server.app.inject({
    method: 'POST',
    url: '/api/user/forgot-password/verify',
    headers,
    payload: { payload, code },
    remoteAddress: from,
  });
}
/** The answer with what differs by nature (the typed address, the random payload) set aside. */
function shape(answer: { statusCode: number; json(): Record<string, unknown> }) {
  const { payload, recipient, ...rest } = answer.json();
  return {
    status: answer.statusCode,
    rest,
    payload: typeof payload === 'string' && (payload as string).length,
    recipients: (recipient as string[]).length,
  };
}

describe.each(kinds)('forgotten password against enumeration on %s', (kind) => {
  it('answers before the mail server is spoken to: a hanging sender changes nothing in the answer', async () => {
    const silent = await startSilentSmtp();
    const server = await startTestServer(kind, { SMTP_URL: silent.url }, { settleMessages: false });
    try {
      const user = await makeUser(server, { methods: [] });
      // With the worker held, what a request does on its own path shows: one queued request each.
      await server.ctx.outbox.stop();
      const known = await forgot(server, user.email);
      const unknown = await forgot(server, 'nobody.at.all@example.be');
      expect(shape(known)).toEqual(shape(unknown));
      const requests = await server.ctx.db.selectFrom('reset_requests').select('name').orderBy('created_at').execute();
      expect(requests.map((r) => r.name)).toEqual([user.email, 'nobody.at.all@example.be']);
      // Printed, never asserted: the two answers' times from this probe, taken in turns.
      const samples: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
      for (let i = 0; i < 31; i++) {
        for (const [which, name] of [
          ['known', user.email],
          ['unknown', 'nobody.at.all@example.be'],
        ] as const) {
          const start = performance.now();
          await forgot(server, name, `10.9.${i}.1`);
          samples[which].push(performance.now() - start);
        }
      }
      const median = (values: number[]) => values.toSorted((a, b) => a - b)[15]!.toFixed(2);
      console.info(
        `forgotten password on ${kind}, median ms: known ${median(samples.known)}, unknown ${median(samples.unknown)}`,
      );
      // The worker then starts the real account's challenge and hangs on the silent server: the
      // code's message waits, undelivered, while every answer above was long given.
      server.ctx.outbox.start();
      let queued: Array<{ recipient: string; attempts: number }> = [];
      for (let i = 0; i < 100 && queued.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        queued = await server.ctx.db.selectFrom('message_outbox').select(['recipient', 'attempts']).execute();
      }
      expect(queued.length).toBeGreaterThan(0);
      expect(queued.every((m) => m.recipient === user.email && m.attempts === 0)).toBe(true);
      expect(
        await server.ctx.db.selectFrom('mfa_challenges').select('id').where('user_id', '=', user.userId).execute(),
      ).not.toHaveLength(0);
    } finally {
      await server.stop();
      await silent.stop();
    }
  });

  it('keeps a delivery failure out of the answer, and the message waits for a retry', async () => {
    const closed = await startSilentSmtp();
    const url = closed.url;
    await closed.stop(); // nothing listens there any more
    const server = await startTestServer(kind, { SMTP_URL: url });
    try {
      const user = await makeUser(server, { methods: [] });
      const known = await forgot(server, user.email);
      const unknown = await forgot(server, 'nobody.either@example.be');
      expect(known.statusCode).toBe(200);
      expect(shape(known)).toEqual(shape(unknown));
      const waiting = await server.ctx.db.selectFrom('message_outbox').selectAll().execute();
      expect(waiting).toMatchObject([{ recipient: user.email, attempts: 1, failed_at: null }]);
    } finally {
      await server.stop();
    }
  });

  describe('with a working mail server', () => {
    let server: TestServer;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    beforeAll(async () => {
      smtp = await startSmtp();
      server = await startTestServer(kind, {
        SMTP_URL: smtp.url,
        MFA_SENDS_PER_REQUESTER: '3',
        MFA_SENDS_PER_DESTINATION: '6',
      });
    });
    afterAll(async () => {
      await server?.stop();
      await smtp?.stop();
    });
    const mailsTo = (to: string) => smtp.mails.filter((m) => m.to === to);
    /** The resend wait is per address and name, and codes to one destination are spaced whoever
     * asks (spacing.test.ts): a test that asks again at once lets both pass. */
    const skipWait = async (from: string, email: string) => {
      await server.ctx.limiters.resetRequests.delete(`${from}|email:${email}`);
      await skipResendWaits(server);
    };

    it('answers a wrong code the same for a real and an unknown account: no attempts left, no expiry', async () => {
      const user = await makeUser(server, { methods: [] });
      const known = await forgot(server, user.email);
      const unknown = await forgot(server, 'nobody.here@example.be');
      const code = codeIn(mailsTo(user.email).at(-1)!.raw);
      const wrong = code === '00000000' ? '11111111' : '00000000';
      const a = await verify(server, known.json().payload, wrong);
      const b = await verify(server, unknown.json().payload, wrong);
      expect(a.statusCode).toBe(b.statusCode);
      expect(a.body).toBe(b.body);
      expect(a.json()).toEqual({ code: 'invalid_code', message: expect.any(String) });
      // An expired real code reads the same as well.
      await server.ctx.db
        .updateTable('mfa_challenges')
        .set({ expires_at: '2000-01-01T00:00:00.000Z' })
        .where('user_id', '=', user.userId)
        .execute();
      expect((await verify(server, known.json().payload, code)).body).toBe(b.body);
    });

    it("checks a code against an unknown account's payload with the same work: a stand-in challenge, no code, no name kept, attempts counted", async () => {
      const user = await makeUser(server, { methods: [] });
      const known = (await forgot(server, user.email, '192.0.2.61')).json().payload as string;
      const sentBefore = smtp.mails.length;
      const unknown = (await forgot(server, 'nobody.stands.in@example.be', '192.0.2.61')).json().payload as string;
      expect(smtp.mails.length).toBe(sentBefore);
      const standIn = await server.ctx.db
        .selectFrom('mfa_challenges')
        .selectAll()
        .where('user_id', 'is', null)
        .where('flow_id', 'is', null)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      expect(standIn).toMatchObject({ purpose: 'reset', code_hash: null, attempts: 0 });
      // What its failures are counted by, as a real account's are: the name typed, keyed, never the name.
      expect(standIn.target).toMatch(/^name:[\w-]{43}$/);
      // Wrong codes are counted on both, and answer the same until the last.
      for (let i = 0; i < 5; i++) {
        const a = await verify(server, known, String(20_000_000 + i), '192.0.2.61');
        const b = await verify(server, unknown, String(20_000_000 + i), '192.0.2.61');
        expect(a.statusCode).toBe(b.statusCode);
        expect(a.body).toBe(b.body);
      }
      expect(
        (
          await server.ctx.db
            .selectFrom('mfa_challenges')
            .select('attempts')
            .where('id', '=', standIn.id)
            .executeTakeFirstOrThrow()
        ).attempts,
      ).toBe(5);
      // Printed, never asserted: the time of a wrong code for each, from this probe, taken in turns.
      const samples: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
      for (let i = 0; i < 21; i++) {
        const payloads = {
          known: (await forgot(server, user.email, `10.8.${i}.1`)).json().payload,
          unknown: (await forgot(server, 'nobody.stands.in@example.be', `10.8.${i}.1`)).json().payload,
        };
        for (const which of ['known', 'unknown'] as const) {
          const start = performance.now();
          await verify(server, payloads[which], '12345678', `10.8.${i}.2`);
          samples[which].push(performance.now() - start);
        }
      }
      const median = (values: number[]) => values.toSorted((x, y) => x - y)[10]!.toFixed(2);
      console.info(
        `wrong forgotten-password code on ${kind}, median ms: known ${median(samples.known)}, unknown ${median(samples.unknown)}`,
      );
    });

    it('answers a second request at once the same for both: wait, whether the account exists or not', async () => {
      const user = await makeUser(server, { methods: [] });
      await forgot(server, user.email, '192.0.2.50');
      await forgot(server, 'nobody.twice@example.be', '192.0.2.50');
      const known = await forgot(server, user.email, '192.0.2.50');
      const unknown = await forgot(server, 'nobody.twice@example.be', '192.0.2.50');
      expect(known.statusCode).toBe(429);
      expect(known.json().code).toBe('resend_too_soon');
      expect(known.body).toBe(unknown.body);
    });

    it('lets the owner reset with the right code after a stranger typed eleven wrong ones', async () => {
      const user = await makeUser(server, { methods: [] });
      const stranger = '203.0.113.66';
      // The stranger asks for codes to the owner's address and guesses, across three challenges.
      let wrongs = 0;
      for (let round = 0; round < 3 && wrongs < 11; round++) {
        await skipWait(stranger, user.email);
        const theirs = (await forgot(server, user.email, stranger)).json().payload as string;
        for (let i = 0; i < 5 && wrongs < 11; i++, wrongs++)
          await verify(server, theirs, String(10_000_000 + wrongs), stranger);
      }
      expect(wrongs).toBe(11);
      // The owner asks from home, once the last code's wait is over, and types the right code.
      await skipWait('198.51.100.77', user.email);
      const mine = (await forgot(server, user.email, '198.51.100.77')).json().payload as string;
      const ticket = await verify(server, mine, codeIn(mailsTo(user.email).at(-1)!.raw), '198.51.100.77');
      expect(ticket.statusCode).toBe(200);
      expect(ticket.json().payload).toEqual(expect.any(String));
    });

    it("never spoils the owner's code with one a stranger asks for, and the stranger's sending budget runs out first", async () => {
      const user = await makeUser(server, { methods: [] });
      const owner = '198.51.100.88';
      const mine = (await forgot(server, user.email, owner)).json().payload as string;
      const myCode = codeIn(mailsTo(user.email).at(-1)!.raw);
      const stranger = '203.0.113.99';
      for (let i = 0; i < 5; i++) {
        await skipWait(stranger, user.email);
        expect((await forgot(server, user.email, stranger)).statusCode).toBe(200);
      }
      // Three reached the address (the stranger's budget), then nothing more was sent for them.
      expect(mailsTo(user.email)).toHaveLength(1 + 3);
      // The owner's first code still works, and the owner can still be sent a new one.
      expect((await verify(server, mine, myCode, owner)).statusCode).toBe(200);
      await skipWait(owner, user.email);
      await forgot(server, user.email, owner);
      expect(mailsTo(user.email)).toHaveLength(1 + 3 + 1);
    });
  });
});

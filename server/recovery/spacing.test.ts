// Forgotten-password codes to one destination are spaced as resends are (30 s, then 15 s after
// each), whoever asks: thirty requests at once send one code, not ten. The answers cannot tell a
// request that sent from one held back, and a code held back never spoils the one the owner holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors.ts';
import { startChallenge } from '../methods/challenges.ts';
import { atOnce } from '../testing/concurrency.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { makeUser, skipResendWaits } from '../testing/mfaKit.ts';
import { codeIn, startSmtp } from '../testing/peers.ts';

const kinds = await databaseKinds();
const headers = { 'x-device-id': 'spacing-device-01' };

describe.each(kinds)('the spacing of forgotten-password codes on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer(kind, { SMTP_URL: smtp.url });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
  });

  const forgot = (username: string, from: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      headers,
      payload: { username },
      remoteAddress: from,
    });
  const verify = (payload: string, code: string, from: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password/verify',
      headers,
      payload: { payload, code },
      remoteAddress: from,
    });
  const mailsTo = (to: string) => smtp.mails.filter((m) => m.to === to);
  /** The worker takes twenty requests a pass: lets it handle every queued one. */
  async function settle() {
    while ((await server.ctx.db.selectFrom('reset_requests').select('id').execute()).length > 0)
      await server.ctx.outbox.drain();
    await server.ctx.outbox.drain();
  }
  const codesFor = (userId: string) =>
    server.ctx.db
      .selectFrom('mfa_challenges')
      .select('id')
      .where('user_id', '=', userId)
      .where('purpose', '=', 'reset')
      .execute();
  /** Status and body with what differs by nature (the random payload) set aside. */
  const shape = (answer: { statusCode: number; json(): Record<string, unknown> }) => {
    const { payload, ...rest } = answer.json();
    return { status: answer.statusCode, rest, payload: typeof payload === 'string' && payload.length };
  };

  it('sends one code for thirty requests at once from thirty addresses, answers all thirty alike, and another after the wait', async () => {
    const user = await makeUser(server, { methods: [] });
    const answers = await atOnce(30, (i) => forgot(user.email, `192.0.2.${i + 1}`));
    await settle();
    const shapes = answers.map(shape);
    expect(shapes[0]).toMatchObject({ status: 200, rest: { technology: 'EMAIL', expires_in: 900, resend_in: 30 } });
    for (const each of shapes) expect(each).toEqual(shapes[0]);
    expect(mailsTo(user.email)).toHaveLength(1);
    expect(await codesFor(user.userId)).toHaveLength(1);
    // The one code sent works with the payload of the request that sent it, and with no other.
    const code = codeIn(mailsTo(user.email)[0]!.raw);
    const verdicts = await Promise.all(
      answers.map((answer, i) => verify(answer.json().payload, code, `192.0.2.${i + 1}`)),
    );
    expect(verdicts.filter((v) => v.statusCode === 200)).toHaveLength(1);
    expect(verdicts.filter((v) => v.statusCode !== 200).every((v) => v.json().code === 'invalid_code')).toBe(true);

    // Within the wait nothing more goes, the owner's code used or not; once it is over, a request sends again.
    expect((await forgot(user.email, '198.51.100.59')).statusCode).toBe(200);
    await settle();
    expect(mailsTo(user.email)).toHaveLength(1);
    await skipResendWaits(server);
    expect((await forgot(user.email, '198.51.100.60')).statusCode).toBe(200);
    await settle();
    expect(mailsTo(user.email)).toHaveLength(2);
  });

  it("keeps the owner's code good when strangers ask for more within the wait", async () => {
    const user = await makeUser(server, { methods: [] });
    const owner = '198.51.100.61';
    const mine = (await forgot(user.email, owner)).json().payload as string;
    const myCode = codeIn(mailsTo(user.email).at(-1)!.raw);
    const theirs = await atOnce(5, (i) => forgot(user.email, `203.0.113.${i + 1}`));
    await settle();
    expect(theirs.every((answer) => answer.statusCode === 200)).toBe(true);
    expect(mailsTo(user.email)).toHaveLength(1);
    expect((await verify(mine, myCode, owner)).statusCode).toBe(200);
  });

  it('decides the wait atomically: of thirty code starts for one destination at once, one sends', async () => {
    const user = await makeUser(server, { methods: [] });
    await server.ctx.outbox.stop();
    try {
      const results = await atOnce(30, (i) =>
        startChallenge(server.ctx, {
          userId: user.userId,
          language: 'en',
          purpose: 'reset',
          deviceKey: 'spacing-device-01',
          ip: `192.0.2.${100 + i}`,
          subject: { id: null, method: 'email', target: user.email },
        }).then(
          () => 'sent',
          (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
        ),
      );
      expect(results.filter((r) => r === 'sent')).toHaveLength(1);
      // The others lost the race for the wait, or found the destination's sending budget taken by
      // the racers still in flight (given back once they lost): none sent.
      expect(
        results.filter((r) => r !== 'sent').every((r) => r === 'resend_too_soon' || r === 'too_many_attempts'),
      ).toBe(true);
      const queued = await server.ctx.db
        .selectFrom('message_outbox')
        .select('id')
        .where('recipient', '=', user.email)
        .execute();
      expect(queued).toHaveLength(1);
    } finally {
      server.ctx.outbox.start();
    }
  });
});

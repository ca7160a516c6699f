// A ticket is spent once: thirty simultaneous submissions of one reset or weak-password ticket set
// one password, on PostgreSQL as on SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { makeUser } from '../testing/mfaKit.ts';
import { issueTicket } from '../sessions/tickets.ts';
import { atOnce, statusCounts } from '../testing/concurrency.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { RESET_TICKET_SECONDS } from './forgot.ts';

const kinds = await databaseKinds();

describe.each(kinds)('ticket races on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  const reset = (payload: string, password: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/user/reset-password',
      headers: DEVICE,
      payload: { payload, password, confirmation: password },
    });

  it.each(['reset', 'weak_password'])(
    'sets one password when one %s ticket is sent thirty times at once',
    async (ticketKind) => {
      const user = await makeUser(server, { methods: [] });
      const ticket = await issueTicket(server.ctx.db, user.userId, ticketKind, RESET_TICKET_SECONDS);
      const passwordsBefore = await server.ctx.db
        .selectFrom('passwords')
        .select('hash')
        .where('user_id', '=', user.userId)
        .execute();
      const answers = await atOnce(30, (i) => reset(ticket, `Racing-new-pass-${String(i).padStart(2, '0')}`));
      expect(statusCounts(answers)).toEqual({ 204: 1, 401: 29 });
      const passwords = await server.ctx.db
        .selectFrom('passwords')
        .select('hash')
        .where('user_id', '=', user.userId)
        .execute();
      expect(passwords).toHaveLength(passwordsBefore.length + 1);
      // The history still holds the password before: it cannot come back.
      const again = await issueTicket(server.ctx.db, user.userId, ticketKind, RESET_TICKET_SECONDS);
      expect((await reset(again, DEMO_PASSWORD)).json().code).toBe('password_reused');
    },
  );
});

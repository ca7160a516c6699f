// What a password sign-in costs the database, counted in round trips (server/testing/roundTrips.ts):
// the account's look-up, its throttles (every counter it reads, in one statement where the limiter
// store is the database), and the session it opens. The sign-in records (its event, the device
// seen) are written after the answer, off its path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { roundTripsOf } from '../testing/roundTrips.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const BUDGET = 3;

describe.each(kinds)('the round trips of a sign-in on %s', (kind) => {
  // With the CAPTCHA on (as in production) the account's ceiling is read too: four counters.
  const servers: Record<'off' | 'on', TestServer> = {} as never;
  beforeAll(async () => {
    servers.off = await startTestServer(kind, {}, { settleMessages: false });
    servers.on = await startTestServer(kind, { CAPTCHA: 'true' }, { settleMessages: false });
  });
  afterAll(async () => Promise.all(Object.values(servers).map((server) => server?.stop())));

  it.each(['off', 'on'] as const)(
    `signs in by password, without a second factor, in at most ${BUDGET} round trips (CAPTCHA %s)`,
    async (captcha) => {
      const { result, statements } = await roundTripsOf(() =>
        passwordSignIn(servers[captcha], emma.email, DEMO_PASSWORD),
      );
      expect(result.statusCode).toBe(200);
      // On failure, the statements it sent.
      expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET);
    },
  );
});

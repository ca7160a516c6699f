// The auth cookie lives as long as the session it carries: SESSION_TTL_DAYS sets both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;

describe.each(kinds)('SESSION_TTL_DAYS on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { SESSION_TTL_DAYS: '7' });
  });
  afterAll(async () => server?.stop());

  it("sets the token's life and the cookie's Max-Age alike", async () => {
    const res = await passwordSignIn(server, emma.email, DEMO_PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(res.json().expires_in).toBe(7 * 24 * 3600);
    expect(String(res.headers['set-cookie'])).toMatch(/Max-Age=604800(;|$)/);
  });
});

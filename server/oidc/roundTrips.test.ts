// What one grant at the token endpoint costs the database: an authorization-code exchange and a
// refresh, counted in round trips (server/testing/roundTrips.ts). On PostgreSQL each is a network
// round trip under load: two, the read of the code or refresh token (with its grant and account),
// then its spending with the tokens it gives. On SQLite a statement is a call in the process; the
// spending and the tokens are one transaction there (BEGIN, UPDATE, INSERT, COMMIT).
import { sql } from 'kysely';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENTS, DEMO_USERS } from '../seed/demo.ts';
import { databaseKinds, startListeningTestServer, type TestServer } from '../testing/harness.ts';
import { browse, codeFlowStart, signInCookie } from '../testing/oidcKit.ts';
import { roundTripsOf } from '../testing/roundTrips.ts';

const kinds = await databaseKinds();
const emma = DEMO_USERS.find((u) => u.key === 'cardholder')!;
const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '2')!.redirect_uris.find((u) => u.startsWith('http://'))!;
const BUDGETS = { postgres: 2, sqlite: 5 } as const;

describe.each(kinds)('the round trips of a grant on %s', (kind) => {
  const BUDGET = BUDGETS[kind];
  let server: TestServer & { base: string };
  let config: oidc.Configuration;
  let cookie: string;

  beforeAll(async () => {
    server = await startListeningTestServer(kind, {}, { settleMessages: false });
    config = await oidc.discovery(new URL(`${server.base}/oidc`), '2', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    cookie = await signInCookie(server.base, emma.email);
  });
  afterAll(async () => server?.stop());

  /** A code for client 2 (offline access, so that it also gives a refresh token) and its verifier. */
  async function code(): Promise<{ code: string; verifier: string }> {
    const { url, verifier } = await codeFlowStart(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid offline_access',
      prompt: 'consent',
    });
    const res = await browse(server.base, url, [cookie]);
    expect(res.status).toBe(303);
    return { code: new URL(res.headers.get('location')!).searchParams.get('code')!, verifier };
  }

  /** A token request, in-process (its queries are counted in its async context). */
  const tokenRequest = (form: Record<string, string>) =>
    server.app.inject({
      method: 'POST',
      url: '/oidc/token',
      headers: { host: new URL(server.base).host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: '2', ...form }).toString(),
    });

  /** The exchange of a code for tokens. */
  const spend = (value: string, verifier: string) =>
    tokenRequest({
      grant_type: 'authorization_code',
      code: value,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });

  const exchange = async () => {
    const { code: value, verifier } = await code();
    return roundTripsOf(() => spend(value, verifier));
  };

  it(`exchanges a code in at most ${BUDGET} round trips`, async () => {
    // The first exchange on a fresh instance reads what it then keeps (the client's row).
    await exchange();
    const { result, statements } = await exchange();
    expect(result.statusCode).toBe(200);
    expect(result.json()).toHaveProperty('refresh_token');
    // On failure, the statements it sent.
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET);
  });

  // The tokens of a grant are written after the provider made its answer: when they cannot be, the
  // answer is an error, and names no token. PostgreSQL: a trigger refuses them.
  if (kind === 'postgres')
    it('answers an error, naming no token and spending no code, when the tokens it issued cannot be written', async () => {
      const { code: value, verifier } = await code();
      await sql`create function refuse_tokens() returns trigger language plpgsql as $$ begin
          if new.model = 'AccessToken' then raise exception 'refused'; end if; return new; end $$`.execute(
        server.ctx.db,
      );
      await sql`create trigger refuse_tokens before insert on oidc_models for each row execute function refuse_tokens()`.execute(
        server.ctx.db,
      );
      try {
        const res = await spend(value, verifier);
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({ error: 'server_error', error_description: expect.any(String) });
      } finally {
        await sql`drop trigger refuse_tokens on oidc_models`.execute(server.ctx.db);
        await sql`drop function refuse_tokens`.execute(server.ctx.db);
      }
      // Neither the access token nor the refresh token of that answer was kept.
      const { grantId } = (await server.ctx.db
        .selectFrom('oidc_models')
        .select('payload')
        .where('model', '=', 'AuthorizationCode')
        .where('id', '=', value)
        .executeTakeFirstOrThrow()
        .then((row) => JSON.parse(row.payload))) as { grantId: string };
      expect(
        await server.ctx.db
          .selectFrom('oidc_models')
          .select('model')
          .where('grant_id', '=', grantId)
          .where('model', 'in', ['AccessToken', 'RefreshToken'])
          .execute(),
      ).toEqual([]);
      // Nor was the code spent: the client's next try gets its tokens.
      const again = await spend(value, verifier);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toHaveProperty('access_token');
    });

  it(`refreshes in at most ${BUDGET} round trips`, async () => {
    const first = (await exchange()).result.json<{ refresh_token: string }>().refresh_token;
    const { result, statements } = await roundTripsOf(() =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: first }),
    );
    expect(result.statusCode).toBe(200);
    expect(result.json<{ refresh_token: string }>().refresh_token).not.toBe(first);
    // On failure, the statements it sent.
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(BUDGET);
  });
});

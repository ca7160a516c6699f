// The OIDC error page speaks the languages of the configured origin the request came to: a Host
// that names no configured origin reads as the default origin's, whatever its name says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.ts';

describe("the OIDC error page's language", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.stop());

  const errorPage = async (host: string, refusal: (typeof refused)[number]) => {
    const res = await server.app.inject({
      ...refusal,
      headers: { ...refusal.headers, host, accept: 'text/html', 'accept-language': 'fr' },
    });
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    return /<html lang="([\w-]+)"/.exec(res.body)?.[1];
  };
  // An unknown client, refused by the provider; a form of the wrong type, refused before it.
  const refused = [
    { method: 'GET', url: '/oidc/auth?client_id=nobody&response_type=code&scope=openid', headers: {} },
    { method: 'POST', url: '/oidc/auth', headers: { 'content-type': 'text/plain' }, payload: 'x' },
  ] as const;

  it("is the Luxembourg variant's at the configured Luxembourg origin", async () => {
    const lu = new URL(server.ctx.config.publicOrigins.lu).host;
    for (const refusal of refused) expect(await errorPage(lu, refusal)).toBe('fr-LU');
  });

  it('is the default origin\'s at a host configured nowhere, even one with a "lu" label', async () => {
    for (const refusal of refused) expect(await errorPage('account.lu.example', refusal)).toBe('fr');
  });
});

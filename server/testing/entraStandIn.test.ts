// The demo's stand-in for Entra ID (npm start): its own sign-in page, where any work email signs in
// as the same work account each time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEntraStandIn, userOfForm, type EntraStandIn } from './entraStandIn.ts';

const TENANT = '7e57ab1e-0000-4000-8000-00000000de70';
const REDIRECT = 'http://account.localhost:3000/sso/microsoft/login/callback';

describe('the interactive Entra ID stand-in', () => {
  let entra: EntraStandIn;
  beforeAll(async () => {
    entra = await startEntraStandIn({
      tenants: [TENANT],
      clientId: 'demo',
      clientSecret: 'demo-secret',
      redirectUris: [REDIRECT],
      interactive: true,
    });
  });
  afterAll(() => entra.close());

  /** Follows redirects by hand, keeping the stand-in's cookies, until a page or our redirect URI. */
  async function follow(
    start: string,
    jar: Map<string, string>,
    init: RequestInit = {},
  ): Promise<{ url: URL; res: Response }> {
    let url = new URL(start);
    let options = init;
    for (let hops = 0; hops < 10; hops += 1) {
      if (!url.href.startsWith(entra.authority)) return { url, res: new Response(null) };
      const res = await fetch(url, {
        ...options,
        redirect: 'manual',
        headers: { ...(options.headers ?? {}), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        jar.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      const location = res.headers.get('location');
      if (!location) return { url, res };
      url = new URL(location, url);
      options = {};
    }
    throw new Error('too many redirects');
  }

  it('shows its page, signs in the email typed there, and sends the code back', async () => {
    const jar = new Map<string, string>();
    const query = new URLSearchParams({
      client_id: 'demo',
      response_type: 'code',
      scope: 'openid email profile',
      redirect_uri: REDIRECT,
      state: 's',
      nonce: 'n',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const page = await follow(`${entra.authority}/${TENANT}/v2.0/auth?${query}`, jar);
    expect(page.res.status).toBe(200);
    expect(await page.res.text()).toContain('<input name="email" type="email" required');
    // Nothing usable typed: the page again.
    const refused = await follow(page.url.href, jar, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=nobody',
    });
    expect(refused.res.status).toBe(400);
    const back = await follow(page.url.href, jar, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=Max%40Acme.example&name=Max',
    });
    expect(back.url.origin + back.url.pathname).toBe(REDIRECT);
    expect(back.url.searchParams.get('state')).toBe('s');
    expect(back.url.searchParams.get('code')).toBeTruthy();
  });

  it('derives one work account from one email, whatever its case', () => {
    const first = userOfForm('email=Max%40Acme.example&name=Max');
    expect(first).toEqual({
      oid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/),
      email: 'max@acme.example',
      name: 'Max',
    });
    expect(userOfForm('email=max%40acme.example')?.oid).toBe(first!.oid);
    expect(userOfForm('email=other%40acme.example')?.oid).not.toBe(first!.oid);
    expect(userOfForm('email=')).toBeNull();
  });
});

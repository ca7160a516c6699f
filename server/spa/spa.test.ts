import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { precompress } from '../../scripts/build.ts';
import { BOOT_ELEMENT_ID, LANGUAGE_COOKIE } from '../../contract/constants.ts';
import { AFTER_PAINT_ID } from '../../contract/page.ts';
import type { Boot } from '../../contract/schemas.ts';
import type { Prerendered } from '../../scripts/prerender.ts';
import { DEVICE, startTestServer, type TestServer } from '../testing/harness.ts';
import { acceptedLanguages } from './page.ts';
import { registerClient } from '../oidc/clients.ts';
import { OidcAdapter } from '../oidc/adapter.ts';

/** What the page carries for the app (contract/schemas.ts Boot). */
function bootOf(page: string): Boot {
  const json = new RegExp(`<script type="application/json" id="${BOOT_ELEMENT_ID}">(.*?)</script>`).exec(page)?.[1];
  if (!json) throw new Error('no boot element in the page');
  return JSON.parse(json) as Boot;
}

// A built app: its page, the screens drawn ahead (scripts/prerender.ts), a fingerprinted script and
// that script's source map.
const spaDir = mkdtempSync(join(tmpdir(), 'tessera-spa-'));
mkdirSync(join(spaDir, 'assets'));
const styles = 'body{color:#123}';
writeFileSync(join(spaDir, 'assets', 'index-abc.css'), styles);
const shell = `<!doctype html><html lang="en"><head><link rel="icon" href="/favicon.svg" id="favicon"><title>Tessera</title><script type="module" crossorigin src="/assets/index-e1.js"></script><link rel="modulepreload" crossorigin href="/assets/early-e2.js"><link rel="stylesheet" crossorigin href="/assets/index-abc.css"><meta name="description" content="${'An account for cards and benefits. '.repeat(20)}"></head><body><div id="root"></div></body></html>`;
writeFileSync(join(spaDir, 'index.html'), shell);
const drawn: Prerendered = {
  app: ['/assets/start-777.js', '/assets/shell-888.js'],
  locales: {
    fr: '/assets/fr-111.js',
    nl: '/assets/nl-222.js',
    en: '/assets/en-333.js',
    fr_LU: '/assets/fr_LU-444.js',
    en_LU: '/assets/en_LU-555.js',
  },
  screens: {
    be: {
      fr: {
        '/login/email': {
          html: '<div data-prerendered="">Connexion BE</div>',
          title: 'Connexion · Tessera',
          description: 'Un seul compte',
        },
      },
      nl: {
        '/login/email': {
          html: '<div data-prerendered="">Aanmelden BE</div>',
          title: 'Aanmelden · Tessera',
          description: 'Eén account',
        },
      },
      en: {
        '/login/email': {
          html: '<div data-prerendered="">Sign in BE</div>',
          title: 'Sign in & go · Tessera',
          description: 'One "account"',
        },
      },
    },
    lu: {
      fr_LU: {
        '/login/email': {
          html: '<div data-prerendered="">Connexion LU</div>',
          title: 'Connexion · Tessera',
          description: 'Un seul compte',
        },
      },
    },
  },
};
writeFileSync(join(spaDir, 'prerendered.json'), JSON.stringify(drawn));
writeFileSync(join(spaDir, 'assets', 'app-abc123.js'), 'console.info(1)');
writeFileSync(join(spaDir, 'assets', 'app-abc123.js.map'), '{"version":3}');
// The compressed twins the build writes (scripts/build.ts precompress), for a file big enough.
const bigScript = `console.info(${JSON.stringify('Tessera '.repeat(400))});`;
writeFileSync(join(spaDir, 'assets', 'big-def456.js'), bigScript);
precompress(spaDir);

describe('serving the web app', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { SPA_DIR: spaDir }, { seed: false });
  });
  afterAll(async () => server?.stop());

  it.each(['/', '/login/email', '/user/dashboard?redirect_uri=x', '/no/such/screen'])(
    'answers %s with the app shell',
    async (url) => {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    },
  );

  it('sends the compressed twin a browser accepts, Brotli first, keeping the long cache; the plain file to one that accepts none', async () => {
    const get = (encoding?: string) =>
      server.app.inject({
        method: 'GET',
        url: '/assets/big-def456.js',
        headers: encoding ? { 'accept-encoding': encoding } : {},
      });
    const br = await get('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toContain('immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(bigScript);
    expect(br.rawPayload.length).toBeLessThan(bigScript.length / 5);
    const gz = await get('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(bigScript);
    const plain = await get();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(bigScript);
  });

  it('sends the page compressed too, for any page route, still revalidated, with an ETag that answers 304', async () => {
    const get = (headers: Record<string, string>) => server.app.inject({ method: 'GET', url: '/login/email', headers });
    const br = await get({ 'accept-encoding': 'gzip, br' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('no-cache');
    expect(br.headers.vary).toMatch(/accept-encoding.*accept-language.*cookie/i);
    const page = brotliDecompressSync(br.rawPayload).toString();
    expect(page).toContain('<div id="root">');
    expect(br.rawPayload.length).toBeLessThan(page.length / 2);
    const gz = await get({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(page);
    const plain = await get({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(page);
    const again = await get({ 'if-none-match': String(br.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // The page of another language is another page.
    const other = await get({ 'accept-language': 'nl-BE', 'if-none-match': String(br.headers.etag) });
    expect(other.statusCode).toBe(200);
  });

  it('writes what the first screen needs into the page: the config, the language and its strings, the variant, no session cookie', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/login/email',
      headers: { 'accept-language': 'de-DE;q=0.9, fr-BE, nl;q=0.5' },
    });
    const boot = bootOf(res.body);
    expect(boot.locale).toBe('fr');
    expect(boot.sessionCookie).toBe(false);
    expect(boot.config).toEqual(
      (await server.app.inject({ method: 'GET', url: '/api/config', headers: DEVICE })).json(),
    );
    expect(res.body).toContain('<html lang="fr" data-variant="be">');
    // The screen is drawn: the app's modules wait for its paint, in the template the entry starts them from.
    const held = new RegExp(`<template id="${AFTER_PAINT_ID}">(.*?)</template>`).exec(res.body)?.[1] ?? '';
    for (const chunk of ['start-777', 'shell-888', 'fr-111'])
      expect(held).toContain(`<link rel="modulepreload" crossorigin href="/assets/${chunk}.js">`);
    expect(res.body.replace(held, '')).not.toContain('modulepreload');
    expect(res.body).toContain('<div id="root"><div data-prerendered="">Connexion BE</div></div>');
    expect(res.body).toContain('<title>Connexion · Tessera</title>');
    // Titles are escaped as text.
    const en = await server.app.inject({ method: 'GET', url: '/login/email', headers: { 'accept-language': 'en' } });
    expect(en.body).toContain('<title>Sign in &amp; go · Tessera</title>');
    expect(en.body).toContain('<meta name="description" content="One &quot;account&quot;">');
  });

  it('carries its stylesheet inline, allowed by its hash and by nothing looser', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/login/email' });
    expect(res.body).toContain(`<style>${styles}</style>`);
    expect(res.body).not.toContain('rel="stylesheet"');
    const hash = createHash('sha256').update(styles).digest('base64');
    expect(res.headers['content-security-policy']).toContain(`style-src 'self' 'sha256-${hash}';`);
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    // Other answers keep the plain policy.
    const api = await server.app.inject({ method: 'GET', url: '/api/config', headers: DEVICE });
    expect(api.headers['content-security-policy']).toContain("style-src 'self';");
  });

  it("lets only an application's sign-out confirmation post a form whose answer leaves for the application", async () => {
    const policy = async (url: string) =>
      String((await server.app.inject({ method: 'GET', url })).headers['content-security-policy']);
    expect(await policy('/login/email')).toContain("form-action 'self';");
    expect(await policy('/user/dashboard')).toContain("form-action 'self';");
    // The provider's answer to its form redirects to the application's registered address.
    expect(await policy('/logout/confirm?ref=abc')).toMatch(/form-action 'self' https:( http:)?;/);
    expect(await policy('/logout/done')).toContain("form-action 'self';");
  });

  it('asks for the entry of a drawn page only after its paint, by an inline script its hash allows; any other page names it at once', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/login/email' });
    expect(res.body).not.toContain('<script type="module"');
    expect(res.body).not.toContain('early-e2.js');
    const start = /<script>(.*?)<\/script>/.exec(res.body)?.[1] ?? '';
    expect(start).toContain('s.src="/assets/index-e1.js"');
    expect(start).toContain('requestAnimationFrame');
    // Until the entry is there, a submission of the drawn form is held, not posted.
    expect(start).toContain("addEventListener('submit'");
    expect(start).toContain('preventDefault()');
    const hash = createHash('sha256').update(start).digest('base64');
    expect(res.headers['content-security-policy']).toContain(`script-src 'self' 'sha256-${hash}';`);
    const signedIn = await server.app.inject({
      method: 'GET',
      url: '/login/email',
      headers: { cookie: `${server.ctx.cookieName}=anything` },
    });
    expect(signedIn.body).toContain('<script type="module" crossorigin src="/assets/index-e1.js"></script>');
    expect(signedIn.body).not.toMatch(/<script>/);
  });

  it('draws the Luxembourg page for its host, in its language, with its favicon', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/login/email',
      headers: { host: 'account.lu.localhost', 'accept-language': 'nl' },
    });
    expect(bootOf(res.body)).toMatchObject({ locale: 'fr_LU', config: { variant: 'lu' } });
    expect(res.body).toContain('<html lang="fr-LU" data-variant="lu">');
    expect(res.body).toContain('href="/favicon-lu.svg"');
    expect(res.body).toContain('Connexion LU');
    // fr_LU holds only what differs from fr: the page preloads both, the app reads both at once.
    expect(res.body).toContain('/assets/fr_LU-444.js');
    expect(res.body).toContain('/assets/fr-111.js');
    expect(res.body).not.toContain('/assets/nl-222.js');
  });

  it("takes a remembered language over the browser's, as the app does", async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/login/email',
      headers: { 'accept-language': 'fr', cookie: `${LANGUAGE_COOKIE}=nl` },
    });
    expect(bootOf(res.body).locale).toBe('nl');
    expect(res.body).toContain('Aanmelden BE');
    // A language the variant does not offer is not taken.
    const odd = await server.app.inject({
      method: 'GET',
      url: '/login/email',
      headers: { 'accept-language': 'fr', cookie: `${LANGUAGE_COOKIE}=de_LU` },
    });
    expect(bootOf(odd.body).locale).toBe('fr');
  });

  it("names the application an authorisation request signs the visitor in to, in the visitor's language", async () => {
    await registerClient(server.ctx.db, {
      client_id: 'deals-partner',
      name: 'Deals partner',
      names: { fr: 'Partenaire avantages' },
      redirect_uris: ['https://deals.partner.example/cb'],
    });
    await new OidcAdapter(server.ctx.db, 'Interaction').upsert(
      'uid-of-a-request',
      { params: { client_id: 'deals-partner' } },
      60,
    );
    const url = '/login/email?redirect=%2Foidc%2Finteraction%2Fuid-of-a-request';
    const res = await server.app.inject({ method: 'GET', url, headers: { 'accept-language': 'fr' } });
    expect(bootOf(res.body).signingInTo).toEqual({
      client_id: 'deals-partner',
      name: 'Partenaire avantages',
      logo_uri: null,
      first_party: false,
    });
    // The screen drawn ahead does not name it: the app draws this one.
    expect(res.body).toContain('<div id="root"></div>');
    for (const other of [
      '/login/email?redirect=%2Foidc%2Finteraction%2Funknown',
      '/login/email?redirect=%2Fuser%2Fdashboard',
      '/login/email?redirect=%2Foidc%2Finteraction%2F..%2Fx',
    ]) {
      expect(bootOf((await server.app.inject({ method: 'GET', url: other })).body).signingInTo).toBeUndefined();
    }
  });

  it('tells the app whether the application is first-party, by the one rule the server decides with', async () => {
    // A spec id (17) is first-party even unflagged; any other id only when its row flags it.
    const clients = [
      { client_id: '17', first_party: false, expected: true },
      { client_id: 'flagged-app', first_party: true, expected: true },
      { client_id: 'plain-partner', first_party: false, expected: false },
    ];
    for (const { client_id, first_party, expected } of clients) {
      await registerClient(server.ctx.db, {
        client_id,
        name: client_id,
        first_party,
        redirect_uris: ['https://app.example/cb'],
      });
      await new OidcAdapter(server.ctx.db, 'Interaction').upsert(`uid-${client_id}`, { params: { client_id } }, 60);
      const url = `/login/email?redirect=%2Foidc%2Finteraction%2Fuid-${client_id}`;
      const boot = bootOf((await server.app.inject({ method: 'GET', url })).body);
      expect(boot.signingInTo).toMatchObject({ client_id, first_party: expected });
    }
  });

  it("speaks the first of a request's ui_locales the host's variant offers, on its sign-in and its consent, and carries its login_hint", async () => {
    await new OidcAdapter(server.ctx.db, 'Interaction').upsert(
      'uid-with-hints',
      { params: { client_id: 'deals-partner', ui_locales: 'de-DE fr-BE nl', login_hint: 'emma@example.be' } },
      60,
    );
    const signIn = '/login/email?redirect=%2Foidc%2Finteraction%2Fuid-with-hints';
    const belgian = await server.app.inject({ method: 'GET', url: signIn, headers: { 'accept-language': 'en' } });
    expect(bootOf(belgian.body)).toMatchObject({
      locale: 'fr',
      authorisationRequest: { locale: 'fr', login_hint: 'emma@example.be' },
    });
    expect(belgian.body).toContain('<html lang="fr"');
    // Luxembourg offers French as fr_LU; the consent of the same request speaks it too.
    const consent = await server.app.inject({
      method: 'GET',
      url: '/approve?uid=uid-with-hints',
      headers: { host: 'account.lu.localhost', 'accept-language': 'en' },
    });
    expect(bootOf(consent.body)).toMatchObject({ locale: 'fr_LU', authorisationRequest: { locale: 'fr_LU' } });
    // A language the person chose here comes first.
    const chosen = await server.app.inject({
      method: 'GET',
      url: signIn,
      headers: { 'accept-language': 'en', cookie: `${LANGUAGE_COOKIE}=nl` },
    });
    expect(bootOf(chosen.body).locale).toBe('nl');
    // No request, or one that asks nothing: nothing said.
    const plain = await server.app.inject({ method: 'GET', url: '/approve?uid=unknown' });
    expect(bootOf(plain.body).authorisationRequest).toBeUndefined();
  });

  it('draws no public screen for a browser with a session cookie, or on a screen not drawn ahead', async () => {
    const signedIn = await server.app.inject({
      method: 'GET',
      url: '/login/email',
      headers: { cookie: `${server.ctx.cookieName}=anything` },
    });
    expect(bootOf(signedIn.body).sessionCookie).toBe(true);
    expect(signedIn.body).toContain('<div id="root"></div>');
    expect(signedIn.body).toContain('<title>Tessera</title>');
    // Nothing is painted before the app draws: its modules are preloaded at once.
    expect(signedIn.body).not.toContain(`<template id="${AFTER_PAINT_ID}">`);
    for (const chunk of ['start-777', 'shell-888'])
      expect(signedIn.body).toMatch(
        new RegExp(`<head>[\\s\\S]*<link rel="modulepreload" crossorigin href="/assets/${chunk}.js">[\\s\\S]*</head>`),
      );
    const dashboard = await server.app.inject({ method: 'GET', url: '/user/dashboard' });
    expect(dashboard.body).toContain('<div id="root"></div>');
  });

  it('keeps a hostile redirect target from closing the script element it travels in', async () => {
    await registerClient(server.ctx.db, {
      client_id: 'hostile',
      name: 'Hostile',
      redirect_uris: ['https://x.example/</script><script>alert(1)</script>'],
    });
    try {
      const res = await server.app.inject({ method: 'GET', url: '/login/email' });
      expect(res.body).not.toContain('<script>alert(1)');
      expect(bootOf(res.body).config?.redirectTargets).toContain(
        'https://x.example/</script><script>alert(1)</script>',
      );
    } finally {
      await server.ctx.db.deleteFrom('oauth_clients').where('client_id', '=', 'hostile').execute();
    }
  });

  it('sends a sign-in posted before any script ran back to its page, reading nothing of it', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/login/email?redirect=%2Fuser%2Fdashboard',
      payload: 'username=a&password=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/login/email?redirect=%2Fuser%2Fdashboard');
    expect((await server.app.inject({ method: 'POST', url: '/api/nothing' })).statusCode).toBe(404);
  });

  it('answers the page itself and what is drawn into it only through page routes', async () => {
    for (const url of ['/index.html', '/prerendered.json']) {
      expect((await server.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('serves fingerprinted assets with a long cache', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it.each([
    '/assets/app-gone.js',
    '/assets/app-gone.css',
    '/assets/nothing',
    '/favicon.ico',
    '/robots.txt',
    '/login/email/app.js',
  ])('answers a missing file %s with 404, not the app shell', async (url) => {
    const res = await server.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('<div id="root">');
  });

  it('does not serve source maps outside development', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/assets/app-abc123.js.map' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('"version"');
  });

  it('never answers an API path with the app shell', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/unknown', headers: DEVICE });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it('does not serve the app for other methods (a POST is sent back to the page, see above)', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
      expect((await server.app.inject({ method, url: '/login/email', payload: {} })).statusCode).toBe(404);
    }
  });
});

describe("the browser's languages", () => {
  it('orders them by quality, keeping the order of equals, leaving out refused ones and the wildcard', () => {
    expect(acceptedLanguages('de;q=0.5, fr-BE, nl;q=0.8, en;q=0, *;q=0.1, fr')).toEqual(['fr-BE', 'fr', 'nl', 'de']);
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(acceptedLanguages(' , ;q=1')).toEqual([]);
  });
});

describe('the page during maintenance', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { SPA_DIR: spaDir, MAINTENANCE: 'true' }, { seed: false });
  });
  afterAll(async () => server?.stop());

  it('carries no config, so the app asks the API and shows the maintenance page', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/login/email' });
    expect(res.statusCode).toBe(200);
    expect(bootOf(res.body).config).toBeNull();
  });
});

describe('serving the web app in development', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { SPA_DIR: spaDir, NODE_ENV: 'development' }, { seed: false });
  });
  afterAll(async () => server?.stop());

  it('serves source maps', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/assets/app-abc123.js.map' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"version":3}');
  });

  it('still answers a missing asset with 404', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/assets/app-gone.js' })).statusCode).toBe(404);
  });
});

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { precompress } from '../../scripts/build.ts';
import { DEVICE, startTestServer, type TestServer } from '../testing/harness.ts';

// A built app: its shell, a fingerprinted script and that script's source map.
const spaDir = mkdtempSync(join(tmpdir(), 'tessera-spa-'));
mkdirSync(join(spaDir, 'assets'));
const shell = `<!doctype html><title>Tessera</title><meta name="description" content="${'An account for cards and benefits. '.repeat(20)}"><div id="root"></div>`;
writeFileSync(join(spaDir, 'index.html'), shell);
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

  it.each(['/', '/login/email', '/user/dashboard?redirect_uri=x', '/no/such/screen'])('answers %s with the app shell', async (url) => {
    const res = await server.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<div id="root">');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('sends the compressed twin a browser accepts, Brotli first, keeping the long cache; the plain file to one that accepts none', async () => {
    const get = (encoding?: string) => server.app.inject({ method: 'GET', url: '/assets/big-def456.js', headers: encoding ? { 'accept-encoding': encoding } : {} });
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

  it('sends the app shell compressed too, for any page route, still revalidated', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/login/email', headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(shell);
  });

  it('serves fingerprinted assets with a long cache', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it.each(['/assets/app-gone.js', '/assets/app-gone.css', '/assets/nothing', '/favicon.ico', '/robots.txt', '/login/email/app.js'])(
    'answers a missing file %s with 404, not the app shell', async (url) => {
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

  it('does not serve the app for other methods', async () => {
    const res = await server.app.inject({ method: 'POST', url: '/login/email', payload: {} });
    expect(res.statusCode).toBe(404);
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

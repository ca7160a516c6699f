import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE, startTestServer, type TestServer } from '../testing/harness.ts';

describe('serving the web app', () => {
  let server: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-spa-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tessera</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.info(1)');
    server = await startTestServer('sqlite', { SPA_DIR: dir }, { seed: false });
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

  it('serves fingerprinted assets with a long cache', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('immutable');
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

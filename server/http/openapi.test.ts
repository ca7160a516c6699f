import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE, startTestServer, type TestServer } from '../testing/harness.ts';

describe('OpenAPI document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {}, { seed: false });
  });
  afterAll(async () => server?.stop());

  it('describes the API from the contract schemas in development', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/openapi.json', headers: DEVICE });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/token', '/user', '/config']));
    const login = doc.paths['/token'].post;
    expect(login.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['username', 'password']),
    );
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '429']));
  });

  it('is not served in production', async () => {
    const production = await startTestServer(
      'sqlite',
      { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(40) },
      { seed: false },
    );
    try {
      const res = await production.app.inject({ method: 'GET', url: '/api/openapi.json', headers: DEVICE });
      expect(res.statusCode).toBe(404);
      const login = await production.app.inject({
        method: 'POST',
        url: '/api/token',
        headers: DEVICE,
        payload: { username: 'a@b.be', password: 'x' },
      });
      expect(login.headers['strict-transport-security']).toContain('max-age=');
    } finally {
      await production.stop();
    }
  });
});

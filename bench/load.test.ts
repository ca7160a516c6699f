import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeanConnection, wireRequest } from './load.ts';

describe("the load generator's lean connection", () => {
  let server: http.Server;
  let port: number;
  const seen: Array<{ method?: string; url?: string; body: string; length?: string }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body, length: req.headers['content-length'] });
        if (req.url === '/chunked') {
          res.writeHead(202);
          res.write('part one, ');
          setTimeout(() => res.end('part two'), 5);
        } else if (req.url === '/empty') {
          res.writeHead(204).end();
        } else {
          res
            .writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ echo: body }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends requests one after another on one socket and reads each answer's status, whatever its framing", async () => {
    const connection = new LeanConnection(port);
    const post = wireRequest({
      method: 'POST',
      path: '/token',
      headers: { 'content-type': 'application/json' },
      body: '{"a":"é"}',
    });
    expect(await connection.send(post)).toBe(200);
    expect(await connection.send(wireRequest({ method: 'GET', path: '/chunked', headers: {} }))).toBe(202);
    expect(await connection.send(wireRequest({ method: 'GET', path: '/empty', headers: {} }))).toBe(204);
    expect(await connection.send(wireRequest({ method: 'GET', path: '/missing', headers: {} }))).toBe(404);
    expect(await connection.send(post)).toBe(200);
    connection.close();
    // The body went whole, its length counted in bytes, not characters.
    expect(seen[0]).toEqual({ method: 'POST', url: '/token', body: '{"a":"é"}', length: '10' });
    expect(seen.map((request) => request.url)).toEqual(['/token', '/chunked', '/empty', '/missing', '/token']);
  });

  it('answers 0 when no server listens, rather than hanging', async () => {
    const closed = http.createServer(() => {});
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const connection = new LeanConnection(deadPort);
    expect(await connection.send(wireRequest({ method: 'GET', path: '/', headers: {} }))).toBe(0);
    connection.close();
  });
});

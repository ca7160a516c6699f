// A client that sends headers and then only part of its body does not hold the socket for long:
// the server answers 408 (or closes) once REQUEST_TIMEOUT_SECONDS have passed.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.ts';

describe('a body that never finishes', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { REQUEST_TIMEOUT_SECONDS: '1' }, { seed: false });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => server?.stop());

  it('is cut off with 408 within the configured bound', async () => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.write(
      'POST /api/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'X-Device-Id: test-device-0001\r\nContent-Length: 1000\r\n\r\n{"username":',
    );
    const outcome = await new Promise<'closed' | 'still open'>((resolve) => {
      const timer = setTimeout(() => resolve('still open'), 8000);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve('closed');
      });
    });
    socket.destroy();
    expect(outcome).toBe('closed');
    // 1 s of bound, checked every second, with room for a slow machine.
    expect(Date.now() - started).toBeLessThan(6000);
    if (received) expect(received).toMatch(/^HTTP\/1\.1 408/);
  });
});

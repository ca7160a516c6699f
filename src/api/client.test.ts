// The API client (ky) against a real HTTP server on loopback: what reaches the server, and how each
// failure reaches the machines (contract/api.ts's ApiFailure).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as v from 'valibot';
import { apiFailure, isApiFailure } from '../../contract/api.ts';
import { DEVICE_ID_HEADER, IDEMPOTENCY_HEADER, REQUEST_TIMEOUT_MS } from '../../contract/constants.ts';
import { call, createApi, onUnauthorised, parsed } from './client.ts';

let server: Server;
let baseUrl: string;
const hits = new Map<string, number>();
/** Requests the server holds without answering, and who waits to see one arrive. */
const held: ServerResponse[] = [];
/** The Idempotency-Keys POST /api/flaky received, and whether it answers as a lost instance would. */
const flakyKeys: string[] = [];
let flakyLost = true;
let arrived: (() => void) | null = null;

function answer(response: ServerResponse, status: number, body: string, type = 'application/json') {
  response.writeHead(status, { 'content-type': type });
  response.end(body);
}

function route(request: IncomingMessage, response: ServerResponse, body: string) {
  const url = new URL(request.url ?? '/', 'http://x');
  const key = `${request.method} ${url.pathname}`;
  hits.set(key, (hits.get(key) ?? 0) + 1);
  switch (key) {
    case 'POST /api/echo':
    case 'GET /api/echo':
      return answer(
        response,
        200,
        JSON.stringify({
          method: request.method,
          query: Object.fromEntries(url.searchParams),
          headers: request.headers,
          body,
        }),
      );
    case 'POST /api/conflict':
      return answer(
        response,
        409,
        JSON.stringify({ code: 'fuzzion_offer', message: 'Another account holds it.', payload: 'ticket-1' }),
      );
    case 'POST /api/slow-down':
      return answer(response, 429, JSON.stringify({ code: 'too_many_attempts', message: 'Wait.', retry_after: 30 }));
    case 'GET /api/gateway':
      return answer(response, 502, '<html><body>Bad gateway</body></html>', 'text/html');
    case 'GET /api/unlabelled':
      return answer(response, 400, JSON.stringify({ code: 'validation_failed', message: 'Bad.' }), 'text/plain');
    case 'GET /api/gone':
      return answer(response, 401, JSON.stringify({ code: 'unauthorized', message: 'No session.' }));
    case 'POST /api/unavailable':
    case 'GET /api/unavailable':
      return answer(response, 503, JSON.stringify({ code: 'internal_error', message: 'Down.' }));
    case 'DELETE /api/empty':
      response.writeHead(204);
      return response.end();
    case 'POST /api/flaky':
      // The balancer's answer for a lost instance, until the test lets it through.
      flakyKeys.push(String(request.headers[IDEMPOTENCY_HEADER]));
      return flakyLost
        ? answer(response, 502, '<html><body>Bad gateway</body></html>', 'text/html')
        : answer(response, 200, '{}');
    case 'GET /api/hang':
      held.push(response);
      arrived?.();
      return undefined;
    default:
      return answer(response, 404, JSON.stringify({ code: 'not_found', message: 'No such route.' }));
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => route(request, response, Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  vi.useRealTimers();
  for (const response of held.splice(0)) response.destroy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The failure a call rejects with. */
async function failureOf(request: () => Promise<unknown>) {
  const error = await call(request).then(
    () => null,
    (e: unknown) => e,
  );
  expect(isApiFailure(error)).toBe(true);
  return error;
}

describe('the API client', () => {
  it("sends under /api with the device id, the language, the query, the JSON body and a call's own headers", async () => {
    const api = createApi({ baseUrl });
    const echo = (await call(() =>
      api.post('echo', { json: { a: 1 }, searchParams: { mfaId: '-3' }, headers: { 'x-captcha': 'solved' } }).json(),
    )) as {
      method: string;
      query: Record<string, string>;
      headers: Record<string, string>;
      body: string;
    };
    expect(echo.method).toBe('POST');
    expect(echo.query).toEqual({ mfaId: '-3' });
    expect(echo.body).toBe('{"a":1}');
    expect(echo.headers['content-type']).toBe('application/json');
    expect(echo.headers.accept).toBe('application/json');
    expect(echo.headers['accept-language']).toBe('en');
    expect(echo.headers['x-captcha']).toBe('solved');
    expect(echo.headers[DEVICE_ID_HEADER]).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
  });

  it('sends a file as its own bytes and type', async () => {
    const api = createApi({ baseUrl });
    const echo = (await call(() => api.post('echo', { file: new Blob(['PNG…'], { type: 'image/png' }) }).json())) as {
      headers: Record<string, string>;
      body: string;
    };
    expect(echo.headers['content-type']).toBe('image/png');
    expect(echo.body).toBe('PNG…');
  });

  it("parses an answer with the contract's schema, and an answer that breaks it is a server error", async () => {
    const api = createApi({ baseUrl });
    expect(await parsed(v.object({ method: v.string() }), () => api.get('echo').json())).toEqual({ method: 'GET' });
    const error = await parsed(v.object({ missing: v.string() }), () => api.get('echo').json()).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'api_failure', status: 502, code: 'internal_error' });
  });

  it('reads a 204 as nothing, with its status', async () => {
    const api = createApi({ baseUrl });
    expect(await call(() => api.delete('empty').json())).toBeUndefined();
    expect((await call(() => api.delete('empty'))).status).toBe(204);
  });

  it('turns an error answer into its code, message and whole body', async () => {
    const api = createApi({ baseUrl });
    expect(await failureOf(() => api.post('conflict', { json: {} }).json())).toEqual(
      apiFailure(409, {
        code: 'fuzzion_offer',
        message: 'Another account holds it.',
        payload: 'ticket-1',
      }),
    );
    expect(await failureOf(() => api.post('slow-down').json())).toMatchObject({
      status: 429,
      code: 'too_many_attempts',
      body: { retry_after: 30 },
    });
    // JSON not labelled as JSON is still read, as before.
    expect(await failureOf(() => api.get('unlabelled'))).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('turns an answer that is not JSON into the generic code of its status', async () => {
    const api = createApi({ baseUrl });
    expect(await failureOf(() => api.get('gateway').json())).toEqual({
      kind: 'api_failure',
      status: 502,
      code: 'internal_error',
      message: 'HTTP error, status = 502',
      body: {},
    });
  });

  it('tells the app of every 401', async () => {
    const api = createApi({ baseUrl });
    const heard = vi.fn();
    onUnauthorised(heard);
    expect(await failureOf(() => api.get('gone').json())).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(heard).toHaveBeenCalledTimes(1);
    onUnauthorised(() => {});
  });

  it('turns no answer (a refused connection) into status 0, network_error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const api = createApi({ baseUrl: `http://127.0.0.1:${port}` });
    expect(await failureOf(() => api.post('token', { json: {} }).json())).toEqual(apiFailure(0, {}));
  });

  it('sends a call once: neither a POST nor a GET is retried', async () => {
    const api = createApi({ baseUrl });
    expect(await failureOf(() => api.post('unavailable', { json: {} }).json())).toMatchObject({ status: 503 });
    expect(await failureOf(() => api.get('unavailable').json())).toMatchObject({ status: 503 });
    expect(hits.get('POST /api/unavailable')).toBe(1);
    expect(hits.get('GET /api/unavailable')).toBe(1);
  });

  it('gives up on an answer that does not come, as no answer', async () => {
    const api = createApi({ baseUrl, timeout: 300 });
    const started = Date.now();
    expect(await failureOf(() => api.get('hang').json())).toEqual(apiFailure(0, {}));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("waits the spec's 30 s, not less", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const api = createApi({ baseUrl });
    const seen = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let settled: unknown = 'pending';
    const result = call(() => api.get('hang').json())
      .then(
        () => 'answered',
        (e: unknown) => e,
      )
      .then((outcome) => {
        settled = outcome;
      });
    await seen;
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 50);
    expect(settled).toBe('pending');
    await vi.advanceTimersByTimeAsync(100);
    await result;
    expect(settled).toEqual(apiFailure(0, {}));
    arrived = null;
  });

  it('names each call, and names its repeat the same only while no answer came', async () => {
    const api = createApi({ baseUrl });
    const send = (json: object) => call(() => api.post('flaky', { json }).json()).catch(() => null);
    await send({ code: '1234' });
    await send({ code: '1234' });
    await send({ code: '9999' });
    const [first, repeat, other] = flakyKeys;
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    // The balancer's 502: the call may have run, so its repeat carries the same key.
    expect(repeat).toBe(first);
    expect(other).not.toBe(first);
    // Once an answer comes, the same call again is a new one.
    flakyLost = false;
    await send({ code: '1234' });
    await send({ code: '1234' });
    expect(flakyKeys[3]).toBe(first);
    expect(flakyKeys[4]).not.toBe(first);
    // A read carries one too (the spec makes a few GETs send a code); a file carries none.
    const read = (await call(() => api.get('echo').json())) as { headers: Record<string, string> };
    expect(read.headers[IDEMPOTENCY_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
    const file = (await call(() => api.post('echo', { file: new Blob(['x'], { type: 'image/png' }) }).json())) as {
      headers: Record<string, string>;
    };
    expect(file.headers[IDEMPOTENCY_HEADER]).toBeUndefined();
  });
});

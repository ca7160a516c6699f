// The profile picture's calls (PUT, GET, DELETE /api/user/picture) on both databases: what is
// taken, what is kept of it, and how it is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { makeUser, sessionFor } from '../testing/mfaKit.ts';

const kinds = await databaseKinds();
const text = (s: string) => [...new TextEncoder().encode(s)];
const be16 = (n: number) => [n >> 8, n & 0xff];
const exif = text('Exif\0\0GPSLatitude 50.85');
/** A JPEG's structure with an EXIF segment that says where it was taken. */
const JPEG = Buffer.from([
  0xff,
  0xd8,
  0xff,
  0xe0,
  ...be16(16),
  ...text('JFIF\0'),
  ...new Array(9).fill(1),
  0xff,
  0xe1,
  ...be16(exif.length + 2),
  ...exif,
  0xff,
  0xda,
  ...be16(4),
  9,
  9,
  1,
  2,
  3,
  0xff,
  0xd9,
]);

describe.each(kinds)('profile picture on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => server?.stop());

  async function signedIn() {
    const user = await makeUser(server, { methods: ['email'] });
    const device = `picture-${user.userId.slice(0, 8)}`;
    return {
      ...user,
      headers: { 'x-device-id': device, authorization: `Bearer ${await sessionFor(server, user.userId, device)}` },
    };
  }

  it('keeps a picture without its metadata, serves it as an image only, and removes it', async () => {
    const who = await signedIn();
    const put = await server.app.inject({
      method: 'PUT',
      url: '/api/user/picture',
      headers: { ...who.headers, 'content-type': 'image/jpeg' },
      payload: JPEG,
    });
    expect(put.statusCode).toBe(200);
    const stamp = put.json().data.picture as string;
    expect(stamp).toMatch(/^\d{4}-/);
    const got = await server.app.inject({ method: 'GET', url: '/api/user/picture', headers: who.headers });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/jpeg');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['cache-control']).toBe('no-store');
    expect(got.rawPayload.includes(Buffer.from('GPSLatitude'))).toBe(false);
    expect(got.rawPayload.includes(Buffer.from('JFIF'))).toBe(true);
    // An <img> sends the cookie but no device id header.
    const { 'x-device-id': _device, ...imageHeaders } = who.headers;
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/user/picture', headers: imageHeaders })).statusCode,
    ).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers: imageHeaders })).statusCode).toBe(400);
    const profile = await server.app.inject({ method: 'GET', url: '/api/user', headers: who.headers });
    expect(profile.json().data.picture).toBe(stamp);
    const removed = await server.app.inject({ method: 'DELETE', url: '/api/user/picture', headers: who.headers });
    expect(removed.json().data.picture).toBeNull();
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/user/picture', headers: who.headers })).statusCode,
    ).toBe(404);
  });

  it('refuses what is not a picture, whatever it claims, a type it does not take, one too large, and a visitor', async () => {
    const who = await signedIn();
    const svg = await server.app.inject({
      method: 'PUT',
      url: '/api/user/picture',
      headers: { ...who.headers, 'content-type': 'image/png' },
      payload: Buffer.from('<svg onload="alert(1)"/>'),
    });
    expect(svg.statusCode).toBe(415);
    expect(svg.json().code).toBe('invalid_picture');
    const broken = await server.app.inject({
      method: 'PUT',
      url: '/api/user/picture',
      headers: { ...who.headers, 'content-type': 'image/jpeg' },
      payload: JPEG.subarray(0, 20),
    });
    expect(broken.json().code).toBe('invalid_picture');
    const gif = await server.app.inject({
      method: 'PUT',
      url: '/api/user/picture',
      headers: { ...who.headers, 'content-type': 'image/gif' },
      payload: Buffer.from('GIF89a'),
    });
    expect(gif.statusCode).toBe(415);
    const huge = await server.app.inject({
      method: 'PUT',
      url: '/api/user/picture',
      headers: { ...who.headers, 'content-type': 'image/jpeg' },
      payload: Buffer.concat([JPEG, Buffer.alloc(6 * 1024 * 1024)]),
    });
    expect(huge.statusCode).toBe(413);
    const visitor = await server.app.inject({
      method: 'PUT',
      url: '/api/user/picture',
      headers: { 'x-device-id': 'visitor-device-1', 'content-type': 'image/jpeg' },
      payload: JPEG,
    });
    expect(visitor.statusCode).toBe(401);
    const stored = await server.ctx.db
      .selectFrom('user_pictures')
      .select('user_id')
      .where('user_id', '=', who.userId)
      .execute();
    expect(stored).toEqual([]);
  });
});

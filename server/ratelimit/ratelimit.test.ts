// Limiter keys come from what clients send; the stores bound their key column (PostgreSQL:
// varchar(255)), so a long key is kept as its hash: counted, cleared, and apart from its neighbours.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { forget, spend, standing, storedKey } from './index.ts';

const kinds = await databaseKinds();

describe('stored keys', () => {
  it('keeps short keys as they are and hashes long ones to a fixed length', () => {
    expect(storedKey('email:emma.peeters@example.be|127.0.0.1')).toBe('email:emma.peeters@example.be|127.0.0.1');
    const long = storedKey('x'.repeat(5000));
    expect(long).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(storedKey('x'.repeat(5000))).toBe(long);
    expect(storedKey('y'.repeat(201))).not.toBe(storedKey('y'.repeat(202)));
    expect(storedKey('z'.repeat(200))).toBe('z'.repeat(200));
  });
});

describe.each(kinds)('long limiter keys on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOGIN_MAX_FAILS_PER_USER_IP: '2' }, { seed: false });
  });
  afterAll(async () => server?.stop());

  it("counts, blocks and forgets a key longer than the store's column", async () => {
    const limiter = server.ctx.limiters.userIp;
    const key = `raw:${'a'.repeat(400)}@example.be|${'f'.repeat(300)}`;
    const neighbour = `${key}b`;
    expect(await spend(limiter, key)).toBe(0);
    expect(await spend(limiter, key)).toBe(0);
    expect(await spend(limiter, key)).toBeGreaterThan(0);
    expect((await standing(limiter, key)).wait).toBeGreaterThan(0);
    expect(await standing(limiter, neighbour)).toEqual({ failures: 0, wait: 0 });
    await forget(limiter, key);
    expect(await standing(limiter, key)).toEqual({ failures: 0, wait: 0 });
  });
});

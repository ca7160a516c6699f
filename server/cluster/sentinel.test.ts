// Redis behind Sentinels fails over under load: a primary, its replica and three Sentinels
// (`redis-server --sentinel`), the portal given only the Sentinels (REDIS_URL=redis+sentinel://…).
// The primary is killed while requests that count in Redis keep coming: none gets a 500, and once
// the Sentinels have promoted the replica the portal uses it, by itself.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { freePort } from '../testing/ports.ts';
import { hasRedisServer, startRedis, stopRedis } from '../testing/redis.ts';

const PRIMARY = 'tessera-primary';

describe.runIf(hasRedisServer)('Redis that fails over behind Sentinels', () => {
  let dir: string;
  let primaryPort: number;
  let replicaPort: number;
  const processes: ChildProcess[] = [];
  let primary: ChildProcess;
  let server: TestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-sentinel-'));
    primaryPort = await freePort();
    replicaPort = await freePort();
    primary = await startRedis(primaryPort);
    processes.push(primary, await startRedis(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]));
    const sentinelPorts = [await freePort(), await freePort(), await freePort()];
    for (const port of sentinelPorts) {
      // A Sentinel writes what it learns into its configuration file: one of its own each.
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `sentinel monitor ${PRIMARY} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${PRIMARY} 1000`,
          `sentinel failover-timeout ${PRIMARY} 10000`,
          '',
        ].join('\n'),
      );
      processes.push(await startRedis(port, ['--sentinel'], conf));
    }
    const sentinels = sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');
    server = await startTestServer('sqlite', { REDIS_URL: `redis+sentinel://${sentinels}/${PRIMARY}` });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    for (const child of processes) await stopRedis(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers no request with a 500 while the primary is lost, and uses the promoted replica by itself', async () => {
    const redis = server.ctx.redis!;
    const servedBy = async () => Number(/tcp_port:(\d+)/.exec(await redis.info('server'))?.[1]);
    await expect.poll(servedBy).toBe(primaryPort);

    const statuses = new Map<number, number>();
    let loading = true;
    const worker = async (n: number) => {
      for (let i = 0; loading; i++) {
        // Each challenge is counted in Redis, per address.
        const res = await server.app.inject({
          method: 'POST',
          url: '/api/passkey/options',
          headers: { 'x-device-id': `sentinel-device-${n}` },
          remoteAddress: `198.51.100.${(n * 50 + (i % 50)) % 250}`,
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        // A steady load, as people make it, not a loop as fast as the process can turn.
        await sleep(20);
      }
    };
    const load = Promise.all([1, 2, 3].map(worker));

    await stopRedis(primary);
    // The Sentinels agree the primary is down, promote the replica, and the client follows.
    await expect.poll(servedBy, { timeout: 30_000, interval: 250 }).toBe(replicaPort);
    const ready = await server.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json().checks.redis).toBe('ok');
    loading = false;
    await load;

    expect([...statuses.keys()].filter((status) => status >= 500 && status !== 503)).toEqual([]);
    expect(statuses.get(200)).toBeGreaterThan(0);
  }, 90_000);
});

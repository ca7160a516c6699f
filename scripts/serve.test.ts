import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../server/testing/ports.ts';

const root = join(import.meta.dirname, '..');

describe('starting the server', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT must be a whole number'],
    [{ DATABASE_URL: 'mysql://db' }, 'DATABASE_URL must be a URL starting with postgres:'],
    [{ GEOIP_CITY_DB: '/nowhere/cities.mmdb' }, 'GEOIP_CITY_DB must name a MaxMind-format city database'],
  ])('stops with a message naming the bad variable (%j)', (env, message) => {
    const run = spawnSync(process.execPath, ['scripts/serve.ts'], {
      cwd: root,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`Configuration error: ${message}`);
  });
});

describe('stopping the server', () => {
  it('on SIGTERM answers /readyz 503 while it still serves, then finishes and exits', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'tessera-drain-'));
    const child = spawn(process.execPath, ['scripts/serve.ts'], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        PORT: String(port),
        SQLITE_PATH: join(dir, 'tessera.sqlite'),
        SPA_DIR: 'none',
        SEED_DEMO: 'false',
        DEMO_MICROSOFT: 'false',
        LOG_LEVEL: 'silent',
        SHUTDOWN_DRAIN_SECONDS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      const get = (path: string) =>
        fetch(`${base}${path}`, { headers: { 'x-device-id': 'drain-test-device' } }).then(
          async (res) => ({ status: res.status, body: await res.json() }),
          () => null,
        );
      await expect.poll(() => get('/readyz').then((r) => r?.status), { timeout: 30_000 }).toBe(200);

      child.kill('SIGTERM');
      // Out of the balancer: readyz says so; everything else is still served.
      await expect
        .poll(() => get('/readyz'), { timeout: 5_000 })
        .toEqual({ status: 503, body: { status: 'draining', checks: {} } });
      expect((await get('/healthz'))?.status).toBe(200);
      expect((await get('/api/config'))?.status).toBe(200);
      // Then it stops accepting and exits cleanly.
      expect(await exited).toBe(0);
      expect(await get('/healthz')).toBeNull();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

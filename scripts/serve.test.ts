import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

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

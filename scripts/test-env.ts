// What the tests need from the machine: Debian's Chromium and a running PostgreSQL. On a fresh
// machine of this kind (root, apt) both are made ready here, with a word about what happens.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const root = process.getuid?.() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  console.log('Installing Debian Chromium for the browser tests (apt-get install chromium)…');
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', {
    stdio: 'inherit',
  });
  return CHROMIUM;
}

function postgresUp(): boolean {
  return spawnSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-q']).status === 0;
}

export function ensurePostgres(): void {
  if (process.env.TEST_POSTGRES_URL || !existsSync('/usr/bin/pg_isready') || postgresUp()) return;
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  if (versions.length === 0) return;
  console.log('Starting the local PostgreSQL cluster…');
  spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', versions[0]!, 'main', 'start'], { stdio: 'inherit' });
}

/** The balancer and Sentinel the tests of several instances run (server/cluster/): Debian's
 * packages, installed when missing and the user is root; their own services are stopped, as the
 * tests start their own. */
export function ensureClusterTools(): void {
  const missing = [
    ['haproxy', '/usr/sbin/haproxy'],
    ['redis-sentinel', '/usr/bin/redis-sentinel'],
  ].filter(([, binary]) => !existsSync(binary!));
  if (missing.length === 0 || process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return;
  const packages = missing.map(([name]) => name).join(' ');
  console.log(`Installing ${packages} for the tests of several instances…`);
  execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages}`, {
    stdio: 'inherit',
  });
  for (const [name] of missing) spawnSync('service', [name!, 'stop'], { stdio: 'ignore' });
}

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

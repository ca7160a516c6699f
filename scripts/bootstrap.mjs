// Runs on whatever Node the machine has (plain JavaScript, no dependencies): installs the project
// when node_modules is missing or older than the lock file, then hands over to the pinned Node 24.
// Usage: node scripts/bootstrap.mjs <script.ts> [args…]
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const node24 = join(root, 'node_modules', 'node', 'bin', 'node');

const stale = !existsSync(marker) || !existsSync(node24) || statSync(marker).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  console.log('Installing dependencies (npm ci)…');
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
}

const [script, ...args] = process.argv.slice(2);
const binDir = join(root, 'node_modules', '.bin');
const child = spawnSync(node24, [join(root, script), ...args], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}` },
});
process.exit(child.status ?? (child.signal ? 1 : 0));

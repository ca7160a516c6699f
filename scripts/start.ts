// npm start: builds the SPA when it is missing or older than its sources, then serves everything.
// First: it sizes libuv's thread pool, which the build below may start.
import '../server/passwords/threadPool.ts';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildWebApp } from './build.ts';

const root = join(import.meta.dirname, '..');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

const built = join(root, 'dist', 'index.html');
const sources = [
  'src',
  'machines',
  'locales',
  'contract',
  'public',
  'index.html',
  'vite.config.ts',
  'scripts/prerender.ts',
]
  .map((name) => join(root, name))
  .filter(existsSync);
if (!existsSync(built) || Math.max(...sources.map(newestMtime)) > statSync(built).mtimeMs) {
  console.log('Building the web app…');
  const status = buildWebApp();
  if (status !== 0) process.exit(status);
}

await import('./serve.ts');

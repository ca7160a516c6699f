// npm run build, and the build npm start and npm test make: the web app into dist/, always in
// production mode. Vite keeps a NODE_ENV it finds in the environment, so a shell with
// NODE_ENV=development would otherwise ship React's development build. Every text file of the build
// then gets its Brotli and gzip twins, which the server sends to a browser that accepts them
// (server/spa: @fastify/static's preCompressed), so no request pays for compressing. The public
// screens are drawn ahead of the script too (scripts/prerender.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');

export function webBuildCommand(env: NodeJS.ProcessEnv): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return {
    command: 'vite',
    args: ['build', '--mode', 'production', '--logLevel', 'warn'],
    env: { ...env, NODE_ENV: 'production' },
  };
}

const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/;
/** Below this a compressed twin saves less than its headers cost. */
const MIN_BYTES = 512;

/** Writes `.br` (best quality: made once, sent often) and `.gz` beside each text file of `dir`. */
export function precompress(dir: string): { files: number; bytes: number; brotli: number } {
  const totals = { files: 0, bytes: 0, brotli: 0 };
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (!COMPRESSIBLE.test(name) || !statSync(path).isFile()) continue;
    const content = readFileSync(path);
    if (content.length < MIN_BYTES) continue;
    const brotli = brotliCompressSync(content, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
    });
    writeFileSync(`${path}.br`, brotli);
    writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
    totals.files += 1;
    totals.bytes += content.length;
    totals.brotli += brotli.length;
  }
  return totals;
}

/** Builds the web app; returns the exit status of the build. */
export function buildWebApp(env: NodeJS.ProcessEnv = process.env): number {
  const { command, args, env: childEnv } = webBuildCommand(env);
  const built = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: childEnv }).status ?? 1;
  if (built !== 0) return built;
  // The public screens drawn ahead of the script, in a process of their own (it pretends to be a browser).
  const drawn =
    spawnSync(process.execPath, [join(root, 'scripts', 'prerender.ts')], { cwd: root, stdio: 'inherit', env: childEnv })
      .status ?? 1;
  if (drawn === 0) precompress(join(root, 'dist'));
  return drawn;
}

if (import.meta.main) process.exit(buildWebApp());

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { webBuildCommand } from './build.ts';

const root = join(import.meta.dirname, '..');

describe('building the web app', () => {
  it.each([{ NODE_ENV: 'development' }, { NODE_ENV: 'test' }, {}])(
    'builds in production mode whatever NODE_ENV holds (%j)',
    (env) => {
      const build = webBuildCommand({ ...env, PATH: '/bin' });
      expect(build.command).toBe('vite');
      expect(build.args.slice(0, 3)).toEqual(['build', '--mode', 'production']);
      expect(build.env).toEqual({ PATH: '/bin', NODE_ENV: 'production' });
    },
  );

  it("ships React's production build from a shell with NODE_ENV=development", () => {
    const outDir = mkdtempSync(join(tmpdir(), 'tessera-build-'));
    try {
      const { command, args, env } = webBuildCommand({ ...process.env, NODE_ENV: 'development' });
      const run = spawnSync(command, [...args, '--outDir', outDir, '--emptyOutDir'], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      // The source maps name the modules that went into the bundles.
      const sources = readdirSync(join(outDir, 'assets'))
        .filter((name) => name.endsWith('.js.map'))
        .flatMap((name) => JSON.parse(readFileSync(join(outDir, 'assets', name), 'utf8')).sources as string[]);
      expect(sources.some((source) => source.includes('react-dom-client.production'))).toBe(true);
      expect(sources.filter((source) => source.includes('.development.'))).toEqual([]);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 120_000);
});

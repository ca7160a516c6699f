// The operators' command line, run by a test on the test server's own database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/index.ts';
import type { DatabaseKind, TestServer } from './harness.ts';

/** A database the command line can open too, for the test server's `env`: for SQLite a file in a
 * fresh temporary folder (in memory, the command line would open a database of its own); PostgreSQL's
 * is shared already. `remove()` once the server has stopped. */
export function cliDatabase(kind: DatabaseKind, prefix: string): { env: Record<string, string>; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    env: kind === 'sqlite' ? { SQLITE_PATH: join(dir, 'tessera.sqlite') } : {},
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs the command line on the test server's database (see `cliDatabase`): its exit code and all it wrote. */
export async function cliOn(server: TestServer, ...argv: string[]): Promise<{ code: number; out: string }> {
  const env = {
    NODE_ENV: 'test',
    SECRET_KEY: server.ctx.config.secretKey,
    DATABASE_URL: server.ctx.config.databaseUrl ?? '',
    SQLITE_PATH: server.ctx.config.sqlitePath,
    // The server's Redis, where the command line announces its changes to the running instances.
    ...(server.ctx.config.redis && 'url' in server.ctx.config.redis ? { REDIS_URL: server.ctx.config.redis.url } : {}),
  };
  let out = '';
  const code = await runCli(argv, {
    env,
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      out += t;
    },
  });
  return { code, out };
}

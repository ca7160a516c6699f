// A portal of a spec's own, beside the shared one: its own SQLite file (seeded with the demo data),
// the built app, listening on a free port at account.localhost. For a spec whose clients, keys or
// settings must not reach the shared server's other tests; `env` adds settings (given the port, for
// an origin of its own).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/testing/harness.ts';
import { freePort } from '../server/testing/ports.ts';

export type OwnPortal = { server: TestServer; base: string; port: number; stop: () => Promise<void> };

export async function ownPortal(
  name: string,
  env: Record<string, string> | ((port: number) => Record<string, string>) = {},
): Promise<OwnPortal> {
  const port = await freePort();
  const base = `http://account.localhost:${port}`;
  const dir = mkdtempSync(join(tmpdir(), `tessera-e2e-${name}-`));
  const server = await startTestServer('sqlite', {
    SQLITE_PATH: join(dir, 'tessera.sqlite'),
    SPA_DIR: 'dist',
    PUBLIC_ORIGIN_BE: base,
    LOG_LEVEL: 'warn',
    ...(typeof env === 'function' ? env(port) : env),
  });
  await server.app.listen({ port, host: '127.0.0.1' });
  return {
    server,
    base,
    port,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

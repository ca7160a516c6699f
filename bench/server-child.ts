// A server for the benchmarks, in its own process: `tessera` (the real app on a fresh SQLite file,
// with extra users) or `bare` (a minimal Fastify route answering a profile-sized JSON). Reports
// its port over IPC and, when asked, its peak RSS (VmHWM).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../server/app.ts';
import { loadConfig } from '../server/config/index.ts';
import { DEMO_PASSWORD, createUser, seedDemo } from '../server/seed/demo.ts';
import { BENCH_USERS, benchEmail } from './users.ts';


function peakRss(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

const kind = process.argv[2];
let port: number;
if (kind === 'bare') {
  const app = Fastify({ logger: false });
  const profile = {
    data: {
      id: '00000000-0000-4000-8000-000000000000', firstname: 'Emma', lastname: 'Peeters', birthdate: null, gender: null, language: 'nl',
      email: [{ value: 'emma.peeters@example.be', default: true, verified: true }],
      phone: [{ value: '+32470123456', default: true, verified: true }],
      user_id: 'U-1001', customer_user_id: 'C-2001', fridom_user_id: 'F-3001', password_status: 0,
      last_password_change: '2026-11-01T00:00:00.000Z', mfa_forced: false, mfa_customer: false, has_sso: false, sso_only: false,
    },
  };
  app.get('/api/user', async () => profile);
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  const server = await buildApp(loadConfig({
    NODE_ENV: 'test', SQLITE_PATH: join(dir, 'bench.sqlite'), SPA_DIR: 'none', LOG_LEVEL: 'silent',
    LOGIN_MAX_FAILS_PER_IP: '100000',
  }, 2));
  await seedDemo(server.ctx);
  for (let i = 0; i < BENCH_USERS; i++) {
    await createUser(server.ctx, {
      firstname: `Bench${i}`, lastname: 'User', language: 'en', email: benchEmail(i), phone: `+3247090${String(i).padStart(4, '0')}`,
      user_id: `UB-${i}`, customer_user_id: null, fridom_user_id: null, password_status: 0,
    }, DEMO_PASSWORD);
  }
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  port = (server.app.server.address() as { port: number }).port;
}

process.send!({ type: 'ready', port });
process.on('message', (message: { type: string }) => {
  if (message.type === 'rss') process.send!({ type: 'rss', bytes: peakRss() });
});

// npm run dev: the server restarting on change (API on :3000) and Vite with hot reload (:5173),
// which proxies the API. The app's public origins are Vite's (links in mails lead there, the OIDC
// issuer is there) unless PUBLIC_ORIGIN_BE / PUBLIC_ORIGIN_LU say otherwise. Stops both on Ctrl-C.
// PORT moves the API and VITE_PORT Vite (then strictly: e2e/inspect.spec.ts runs one on free ports).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const apiPort = process.env.PORT ?? '3000';
const vitePort = process.env.VITE_PORT;
const children = [
  spawn(process.execPath, ['--watch-path=server', '--watch-path=contract', 'scripts/serve.ts'], {
    cwd: root,
    stdio: 'inherit',
    env: {
      PUBLIC_ORIGIN_BE: `http://account.localhost:${vitePort ?? 5173}`,
      PUBLIC_ORIGIN_LU: `http://account.lu.localhost:${vitePort ?? 5173}`,
      ...process.env,
      SPA_DIR: 'none',
      PORT: apiPort,
    },
  }),
  // vite.config.ts proxies the API to API_PORT.
  spawn('vite', ['--host', 'localhost', ...(vitePort ? ['--port', vitePort, '--strictPort'] : [])], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, API_PORT: apiPort },
  }),
];
const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
for (const child of children)
  child.on('exit', (code) => {
    stop();
    process.exitCode = code ?? 0;
  });

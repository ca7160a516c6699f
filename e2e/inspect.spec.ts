// The XState inspector (README, "Watching flows in the inspector"): under `npm run dev`,
// ?inspect=ws://127.0.0.1:PORT streams the root machine's and its flows' inspection events to a
// WebSocket server on this machine; a server elsewhere is refused, and a production build streams
// nothing. The spec starts its own `npm run dev` (scripts/dev.ts) on free ports: the e2e server
// (playwright.config.ts) serves the production build.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { WebSocketServer } from 'ws';

test.use({ locale: 'en-GB' });
test.describe.configure({ mode: 'serial' });

type Inspection = {
  type: string;
  name?: string;
  sessionId: string;
  parentId?: string;
  rootId?: string;
  event?: { type: string };
};

const root = join(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let inspector: WebSocketServer;
let received: Inspection[] = [];
let connections = 0;
let dev: ChildProcess | undefined;
let devOutput = '';
let vitePort = 0;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  inspector = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(inspector, 'listening');
  inspector.on('connection', (socket) => {
    connections += 1;
    socket.on('message', (data) => received.push(JSON.parse(String(data)) as Inspection));
  });

  // npm run dev, on ports of its own, with a fresh in-memory database.
  const apiPort = await freePort();
  vitePort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    NODE_ENV: 'development',
    PORT: String(apiPort),
    VITE_PORT: String(vitePort),
    HOST: 'localhost',
    SQLITE_PATH: ':memory:',
    SEED_DEMO: 'true',
    DEMO_MICROSOFT: 'false',
    LOG_LEVEL: 'warn',
  };
  delete env.PUBLIC_ORIGIN_BE;
  delete env.PUBLIC_ORIGIN_LU;
  // In a process group of its own: the server under --watch and Vite stop with it.
  dev = spawn(process.execPath, ['scripts/dev.ts'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dev.stdout!.on('data', (chunk) => {
    devOutput += chunk;
  });
  dev.stderr!.on('data', (chunk) => {
    devOutput += chunk;
  });

  // Ready once Vite answers and proxies the API's readiness.
  const deadline = Date.now() + 50_000;
  for (;;) {
    if (dev.exitCode !== null) throw new Error(`npm run dev stopped:\n${devOutput}`);
    const ready = await fetch(`http://localhost:${vitePort}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`npm run dev did not start:\n${devOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
});

test.afterAll(async () => {
  if (dev?.pid && dev.exitCode === null) {
    const exited = once(dev, 'exit');
    process.kill(-dev.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (dev.exitCode === null) process.kill(-dev.pid, 'SIGKILL');
  }
  for (const client of inspector?.clients ?? []) client.terminate();
  await new Promise((resolve) => inspector?.close(resolve));
});

test.beforeEach(() => {
  received = [];
  connections = 0;
});

const wsUrl = () => `ws://127.0.0.1:${(inspector.address() as AddressInfo).port}`;

test('streams the root machine and the sign-in flow to a WebSocket inspector on loopback', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`http://account.localhost:${vitePort}/login/email?inspect=${wsUrl()}`);
  const email = page.getByLabel('Email address');
  await expect(email).toBeVisible({ timeout: 30_000 });

  // The root machine, and the sign-in flow it invoked, each announced as an actor.
  const actor = (name: string) => received.find((m) => m.type === '@xstate.actor' && m.name === name);
  await expect.poll(() => actor('root')?.sessionId).toBeTruthy();
  await expect.poll(() => actor('login')?.sessionId).toBeTruthy();
  const rootActor = actor('root')!;
  const login = actor('login')!;
  expect(rootActor.parentId).toBeUndefined();
  expect(login.parentId).toBe(rootActor.sessionId);
  expect(login.rootId).toBe(rootActor.sessionId);
  // Their snapshots stream too.
  expect(received.some((m) => m.type === '@xstate.snapshot' && m.sessionId === rootActor.sessionId)).toBe(true);

  // What the person does reaches the flow's machine, live.
  await email.fill('someone@example.com');
  await expect
    .poll(() =>
      received.some((m) => m.type === '@xstate.event' && m.sessionId === login.sessionId && m.event?.type === 'CHANGE'),
    )
    .toBe(true);
});

test('?inspect alone opens the hosted Stately inspector', async ({ page, context }) => {
  test.setTimeout(120_000);
  await context.route('https://stately.ai/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<title>inspector</title>' }),
  );
  const popup = page.waitForEvent('popup', { timeout: 30_000 });
  await page.goto(`http://account.localhost:${vitePort}/login/email?inspect`);
  expect((await popup).url()).toBe('https://stately.ai/inspect');
  await expect(page.getByLabel('Email address')).toBeVisible({ timeout: 30_000 });
  expect(connections).toBe(0);
});

test('refuses a WebSocket inspector that is not on loopback', async ({ page }) => {
  // account.localhost reaches this machine too, but only localhost, 127.0.0.1 and [::1] are trusted:
  // the app warns and streams nothing.
  const port = (inspector.address() as AddressInfo).port;
  const warning = page.waitForEvent(
    'console',
    (message) => message.type() === 'warning' && message.text().includes('refused'),
  );
  await page.goto(`http://account.localhost:${vitePort}/login/email?inspect=ws://account.localhost:${port}`);
  await warning;
  await expect(page.getByLabel('Email address')).toBeVisible({ timeout: 30_000 });
  await page.getByLabel('Email address').fill('someone@example.com');
  await page.waitForTimeout(500);
  expect(connections).toBe(0);
  expect(received).toEqual([]);
});

test('a production build streams nothing', async ({ page }) => {
  // The e2e server serves the built app.
  await page.goto(`/login/email?inspect=${wsUrl()}`);
  await expect(page.getByLabel('Email address')).toBeVisible();
  await page.getByLabel('Email address').fill('someone@example.com');
  await page.waitForTimeout(500);
  expect(connections).toBe(0);
});

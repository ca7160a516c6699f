// A throw-away redis-server for tests, never the shared one: started on a port of the test's, killed after.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/** `args`: more of redis-server's options (`--replicaof host port`, `--sentinel`); `conf`: a
 * configuration file to start from (a Sentinel needs one it can write). */
export async function startRedis(port: number, args: string[] = [], conf?: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      ...(conf ? [conf] : []),
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      ...args,
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const probe = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {}); // refused until the server listens
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return child;
    } catch {
      await sleep(50);
    } finally {
      probe.disconnect();
    }
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

export async function stopRedis(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

export const hasRedisServer = await new Promise<boolean>((resolve) => {
  const check = spawn('redis-server', ['--version'], { stdio: 'ignore' });
  check.on('error', () => resolve(false));
  check.on('exit', (code) => resolve(code === 0));
});
if (!hasRedisServer) {
  if (process.env.CI) throw new Error('redis-server is required in CI for the Redis tests');
  console.warn('redis-server not found: the Redis tests are not run');
}

// Several Tessera instances behind HAProxy, as production runs them: real processes
// (scripts/serve.ts) on one PostgreSQL database and one Redis, and the balancer configured by
// deploy/haproxy.cfg. Instances can be stopped (SIGTERM, drained), killed (SIGKILL) and started
// again on their port. With `lines`, the balancer reaches each instance through a line of the test's
// (a small HTTP relay) that can lose an answer: the instance does the work and is killed before its
// answer leaves, the case where a repeat could do the work twice.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPostgresDatabase } from './harness.ts';
import { freePort } from './ports.ts';
import { startRedis, stopRedis } from './redis.ts';

const root = join(import.meta.dirname, '..', '..');
const SECRET_KEY = 'cluster-test-secret-key-0123456789abcdef';

export type Node = { name: string; port: number; process: ChildProcess | null; line: Line | null };

/** What an instance answered to a call whose answer was then lost with it. */
export type LostAnswer = { node: Node; status: number; body: string };
type Matches = (method: string, url: string, body: string) => boolean;
/** A line's question for each call: null to relay it, or who hears the answer it loses. */
type Take = (method: string, url: string, body: string) => ((answer: { status: number; body: string }) => void) | null;

export type Cluster = {
  /** The balancer's address: every request of a test goes through it. */
  base: string;
  nodes: Node[];
  /** SIGTERM: the node drains (readyz 503, still serving), then exits; resolves once it did. */
  stop(node: Node): Promise<number | null>;
  /** SIGKILL: gone at once, with whatever it held. */
  kill(node: Node): Promise<void>;
  /** Starts the node again on its port; resolves once it answers readyz and the balancer uses it. */
  start(node: Node): Promise<void>;
  /** The balancer's status of the node: UP, DOWN, NOLB (draining), …; null while it cannot say. */
  statusOf(node: Node): Promise<string | null>;
  /** With `lines`: the next call that `matches` is done by its instance, which is then killed
   * before its answer leaves (the balancer sees the connection drop, the caller gets 502). Resolves
   * with what the instance had answered, once the balancer has taken it out. */
  loseAnswer(matches: Matches): Promise<LostAnswer>;
  close(): Promise<void>;
};

/** A relay in front of one instance: it forwards each call and its answer, except the one a trap
 * catches. Closed while its instance is down, so that the balancer's connections are refused as
 * they would be by the instance itself (and `retry-on conn-failure` applies). */
type Line = { port: number; open(): Promise<void>; close(): Promise<void> };

function startLine(port: number, target: number, take: Take, lose: () => Promise<void>): Line {
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const caught = take(request.method ?? '', request.url ?? '', body.toString());
      const upstream = http.request(
        { host: '127.0.0.1', port: target, method: request.method, path: request.url, headers: request.headers, agent },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const answered = Buffer.concat(parts);
            if (caught) {
              // The work is done; the instance dies before its answer leaves.
              void lose().then(() => {
                request.socket.destroy();
                caught({ status: answer.statusCode ?? 0, body: answered.toString() });
              });
              return;
            }
            const headers = { ...answer.headers };
            delete headers['transfer-encoding'];
            delete headers['connection'];
            delete headers['keep-alive'];
            response.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': String(answered.length) });
            response.end(answered);
          });
        },
      );
      upstream.on('error', () => request.socket.destroy());
      upstream.end(body);
    });
  });
  return {
    port,
    open: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve())),
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

/** A Tessera instance as production starts it (scripts/serve.ts), on `port`, with the test
 * settings below and `env`; its log's warnings and errors go to the test's. */
export function spawnInstance(port: number, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['scripts/serve.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: String(port),
      SECRET_KEY,
      SPA_DIR: 'none',
      SEED_DEMO: 'false',
      DEMO_MICROSOFT: 'false',
      LOG_LEVEL: 'warn',
      // Three times the balancer's inter × fall (deploy/haproxy.cfg), for a loaded machine.
      SHUTDOWN_DRAIN_SECONDS: '3',
      CAPTCHA: 'false',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Resolves once the instance on `port` answers /readyz 200. */
export const instanceReady = (port: number) =>
  until(() => answers(`http://127.0.0.1:${port}/readyz`), `the instance on ${port} ready`);

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status === 200;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what} did not happen within ${ms} ms`);
}

/** `env`: settings every instance gets besides the cluster's own (an SMTP peer, say). `lines`: the
 * balancer reaches the instances through lines that can lose an answer (`loseAnswer`). */
export async function startCluster(
  env: Record<string, string> = {},
  size = 3,
  options: { lines?: boolean } = {},
): Promise<Cluster> {
  const database = await createPostgresDatabase();
  const redisPort = await freePort();
  const redis = await startRedis(redisPort);
  const lbPort = await freePort();
  const base = `http://127.0.0.1:${lbPort}`;
  const nodes: Node[] = [];
  for (let i = 1; i <= size; i++) nodes.push({ name: `node${i}`, port: await freePort(), process: null, line: null });
  let trap: { matches: Matches; caught(answer: LostAnswer): void } | null = null;
  if (options.lines) {
    for (const node of nodes) {
      node.line = startLine(
        await freePort(),
        node.port,
        (method, url, body) => {
          if (!trap?.matches(method, url, body)) return null;
          const { caught } = trap;
          trap = null;
          return (answer) => caught({ ...answer, node });
        },
        () => kill(node),
      );
    }
  }

  const spawnNode = (node: Node, seed: boolean) => {
    node.process = spawnInstance(node.port, {
      DATABASE_URL: database.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      PUBLIC_ORIGIN_BE: base,
      PUBLIC_ORIGIN_LU: `http://account.lu.localhost:${lbPort}`,
      TRUST_PROXY: 'loopback',
      SEED_DEMO: seed ? 'true' : 'false',
      ...env,
    });
  };
  const ready = (node: Node) => instanceReady(node.port);
  // The balancer's own view of each node (its stats page, as CSV).
  const statsPort = await freePort();
  const statusOf = async (node: Node): Promise<string | null> => {
    try {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
      const row = csv.split('\n').find((line) => line.startsWith(`instances,${node.name},`));
      return row ? (row.split(',')[17] ?? null) : null;
    } catch {
      return null;
    }
  };
  /** The balancer takes a node back after `rise` good checks. */
  const inRotation = (node: Node) =>
    until(async () => (await statusOf(node)) === 'UP', `${node.name} back in rotation`);

  // One node migrates and seeds; the others start on the ready schema.
  spawnNode(nodes[0]!, true);
  await ready(nodes[0]!);
  for (const node of nodes.slice(1)) spawnNode(node, false);
  await Promise.all(nodes.slice(1).map(ready));

  for (const node of nodes) await node.line?.open();
  const haproxy = spawn('haproxy', ['-db', '-f', join(root, 'deploy', 'haproxy.cfg')], {
    env: {
      ...process.env,
      LB_BIND: `127.0.0.1:${lbPort}`,
      STATS_BIND: `127.0.0.1:${statsPort}`,
      PUBLIC_HOST: `127.0.0.1:${lbPort}`,
      ...Object.fromEntries(nodes.map((node, i) => [`NODE${i + 1}`, `127.0.0.1:${node.line?.port ?? node.port}`])),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await until(() => answers(`${base}/readyz`), 'the balancer');
  for (const node of nodes) await inRotation(node);

  const exitOf = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve(child.exitCode)
      : once(child, 'exit').then(([code]) => code as number | null);

  async function kill(node: Node) {
    const child = node.process!;
    const exited = exitOf(child);
    child.kill('SIGKILL');
    await exited;
    node.process = null;
    await node.line?.close();
  }

  return {
    base,
    nodes,
    async stop(node) {
      const child = node.process!;
      const exited = exitOf(child);
      child.kill('SIGTERM');
      const code = await exited;
      node.process = null;
      return code;
    },
    kill,
    async start(node) {
      spawnNode(node, false);
      await ready(node);
      await node.line?.open();
      await inRotation(node);
    },
    statusOf,
    async loseAnswer(matches) {
      if (!options.lines) throw new Error('loseAnswer needs a cluster started with lines');
      const lost = await new Promise<LostAnswer>((caught) => {
        trap = { matches, caught };
      });
      await until(async () => (await statusOf(lost.node)) === 'DOWN', `${lost.node.name} out of rotation`);
      return lost;
    },
    async close() {
      for (const node of nodes) if (node.process) await kill(node);
      const stopped = exitOf(haproxy);
      haproxy.kill('SIGKILL');
      await stopped;
      await stopRedis(redis);
      await database.drop();
    },
  };
}

// The load generator, run as its own process (forked by run.ts) so that it never shares an event
// loop with the server it measures. Two jobs, asked for over IPC:
//   http   — closed loop: `concurrency` workers each send a request over a keep-alive connection,
//            wait for the answer and send the next, cycling through `requests`, until time is up;
//   argon2 — the bound for logins: `concurrency` raw Argon2id verifications in flight, same options.
import http from 'node:http';
import { hash, verify } from '@node-rs/argon2';
import { ARGON2_OPTIONS } from '../server/passwords/hashing.ts';

export type RequestSpec = { method: string; path: string; headers: Record<string, string>; body?: string };

export type LoadJob =
  | { kind: 'http'; port: number; seconds: number; concurrency: number; requests: RequestSpec[] }
  | { kind: 'argon2'; seconds: number; concurrency: number; password: string };

export type LoadResult = {
  /** Answers with a 2xx status, per second of the phase. */
  perSecond: number;
  requests: number;
  ok: number;
  /** Count per status (0: no answer — a connection error or a timeout). */
  statuses: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
};

const REQUEST_TIMEOUT_MS = 10_000;

function send(agent: http.Agent, port: number, spec: RequestSpec): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method: spec.method, path: spec.path, headers: spec.headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end(spec.body);
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `task` from `concurrency` workers until `seconds` have passed; a task's answer is a status. */
async function closedLoop(seconds: number, concurrency: number, task: (i: number) => Promise<number>): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  let counter = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const status = await task(counter++);
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) ok++;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    perSecond: ok / elapsed, requests: latencies.length, ok, statuses,
    p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), seconds: elapsed,
  };
}

export async function runJob(job: LoadJob): Promise<LoadResult> {
  if (job.kind === 'argon2') {
    const stored = await hash(job.password, ARGON2_OPTIONS);
    return closedLoop(job.seconds, job.concurrency, async () => ((await verify(stored, job.password)) ? 200 : 401));
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  try {
    return await closedLoop(job.seconds, job.concurrency, (i) => send(agent, job.port, job.requests[i % job.requests.length]!));
  } finally {
    agent.destroy();
  }
}

if (import.meta.main && process.send) {
  process.on('message', async (message: { id: number; job: LoadJob }) => {
    try {
      process.send!({ id: message.id, result: await runJob(message.job) });
    } catch (error) {
      process.send!({ id: message.id, error: String((error as Error)?.stack ?? error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

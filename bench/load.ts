// The load generator, run as its own process (forked by run.ts) so that it never shares an event
// loop with the server it measures. Two jobs, asked for over IPC:
//   http   — closed loop: `concurrency` workers each send a request over a keep-alive connection,
//            wait for the answer and send the next, cycling through `requests`, until time is up
//            (with `once`, each request is sent once at most: the phase also ends when they are
//            all sent, for requests that spend something, such as an authorization code);
//   refresh — refresh-token chains, as clients hold them: one worker per token in `tokens`, each
//            POSTing a refresh_token grant to `path` with its token, then with the token the
//            answer rotated it to, until time is up (a refused grant ends that chain);
//   argon2 — the bound for logins: `concurrency` raw Argon2id verifications in flight, same options.
// A measurement may come in slices (to interleave two sides in time): slices sent with the same
// `key` add up, and { finish: key } answers their sum.
import http from 'node:http';
import net from 'node:net';
import { hash, verify } from '@node-rs/argon2';
import { ARGON2_OPTIONS } from '../server/passwords/hashing.ts';

export type RequestSpec = { method: string; path: string; headers: Record<string, string>; body?: string };

export type LoadJob =
  | { kind: 'http'; port: number; seconds: number; concurrency: number; requests: RequestSpec[]; once?: boolean }
  | { kind: 'refresh'; port: number; seconds: number; path: string; clientId: string; tokens: string[] }
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

type Tally = { latencies: number[]; statuses: Record<string, number>; ok: number; seconds: number };

const REQUEST_TIMEOUT_MS = 10_000;

/** Sends a request; gives its status and body. */
function exchange(agent: http.Agent, port: number, spec: RequestSpec): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, agent, method: spec.method, path: spec.path, headers: spec.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(spec.body);
  });
}

/**
 * One keep-alive HTTP/1.1 connection that sends a request and reads its answer with as little work
 * as it can: the request's bytes are built once, and the answer is read for its status and its
 * length only (Content-Length or chunked). On two cores the load generator shares the machine with
 * the server it measures: every microsecond it spends is one the server does not get.
 */
export class LeanConnection {
  private socket: net.Socket | null = null;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: ((status: number) => void) | null = null;
  private readonly port: number;
  constructor(port: number) {
    this.port = port;
  }

  private connect(): net.Socket {
    const socket = net.connect({ host: '127.0.0.1', port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.parse();
    });
    const fail = () => {
      this.socket = null;
      this.buffered = Buffer.alloc(0);
      const waiting = this.waiting;
      this.waiting = null;
      waiting?.(0);
    };
    socket.on('error', fail);
    socket.on('close', fail);
    return socket;
  }

  /** Reads one whole answer off the buffer, if it is all there. */
  private parse(): void {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0 || !this.waiting) return;
    const head = this.buffered.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    let bodyEnd: number;
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length) {
      bodyEnd = end + 4 + Number(length[1]);
      if (this.buffered.length < bodyEnd) return;
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const last = this.buffered.indexOf('\r\n0\r\n\r\n', end);
      if (last < 0) return;
      bodyEnd = last + 7;
    } else {
      bodyEnd = end + 4;
    }
    this.buffered = this.buffered.subarray(bodyEnd);
    const waiting = this.waiting;
    this.waiting = null;
    waiting(status);
  }

  send(request: Buffer): Promise<number> {
    this.socket ??= this.connect();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket?.destroy(), REQUEST_TIMEOUT_MS);
      this.waiting = (status) => {
        clearTimeout(timer);
        resolve(status);
      };
      this.socket!.write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
  }
}

/** A request's bytes on the wire, built once. */
export function wireRequest(spec: RequestSpec): Buffer {
  const body = spec.body === undefined ? null : Buffer.from(spec.body);
  const headers = { host: '127.0.0.1', ...spec.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  const head = `${spec.method} ${spec.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `task` from `concurrency` workers until `seconds` have passed (or `limit` tasks were
 * started); a task's answer is a status (negative: that worker has nothing more to do). */
async function closedLoop(
  tally: Tally,
  seconds: number,
  concurrency: number,
  task: (i: number, worker: number) => Promise<number>,
  limit = Infinity,
): Promise<void> {
  const { latencies, statuses } = tally;
  let counter = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline && counter < limit) {
        const t0 = performance.now();
        const status = await task(counter++, worker);
        // A worker with nothing left to send (a broken refresh chain) stops.
        if (status < 0) break;
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 200 && status < 300) tally.ok++;
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
}

function summary(tally: Tally): LoadResult {
  const sorted = Float64Array.from(tally.latencies).sort();
  return {
    perSecond: tally.ok / tally.seconds,
    requests: sorted.length,
    ok: tally.ok,
    statuses: tally.statuses,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    seconds: tally.seconds,
  };
}

const storedHashes = new Map<string, Promise<string>>();

async function runJob(tally: Tally, job: LoadJob): Promise<void> {
  if (job.kind === 'argon2') {
    let pending = storedHashes.get(job.password);
    if (!pending) storedHashes.set(job.password, (pending = hash(job.password, ARGON2_OPTIONS)));
    const stored = await pending;
    return closedLoop(tally, job.seconds, job.concurrency, async () =>
      (await verify(stored, job.password)) ? 200 : 401,
    );
  }
  if (job.kind === 'refresh') {
    const agent = new http.Agent({ keepAlive: true, maxSockets: job.tokens.length });
    const chains = [...job.tokens];
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    try {
      // Each worker takes one chain and keeps it.
      await closedLoop(tally, job.seconds, job.tokens.length, async (_, chain) => {
        const token = chains[chain];
        if (!token) return -1;
        const body = new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: job.clientId,
        }).toString();
        const answer = await exchange(agent, job.port, { method: 'POST', path: job.path, headers, body });
        let rotated: string | undefined;
        try {
          rotated = (JSON.parse(answer.body) as { refresh_token?: string }).refresh_token;
        } catch {
          rotated = undefined;
        }
        chains[chain] = answer.status === 200 ? (rotated ?? '') : '';
        return answer.status;
      });
    } finally {
      agent.destroy();
    }
    return;
  }
  // One lean connection per worker, and each request's bytes built once.
  const connections = Array.from({ length: job.concurrency }, () => new LeanConnection(job.port));
  const wire = job.requests.map(wireRequest);
  try {
    await closedLoop(
      tally,
      job.seconds,
      job.concurrency,
      (i, worker) => connections[worker]!.send(wire[i % wire.length]!),
      job.once ? job.requests.length : Infinity,
    );
  } finally {
    for (const connection of connections) connection.close();
  }
}

export type LoadMessage = { id: number; key: string; job: LoadJob } | { id: number; finish: string };

if (import.meta.main && process.send) {
  const tallies = new Map<string, Tally>();
  process.on('message', async (message: LoadMessage) => {
    try {
      if ('finish' in message) {
        const tally = tallies.get(message.finish) ?? { latencies: [], statuses: {}, ok: 0, seconds: 0 };
        tallies.delete(message.finish);
        process.send!({ id: message.id, result: summary(tally) });
        return;
      }
      let tally = tallies.get(message.key);
      if (!tally) tallies.set(message.key, (tally = { latencies: [], statuses: {}, ok: 0, seconds: 0 }));
      await runJob(tally, message.job);
      process.send!({ id: message.id });
    } catch (error) {
      process.send!({ id: message.id, error: String((error as Error)?.stack ?? error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

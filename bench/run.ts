// npm run bench: each figure as a ratio against a baseline measured in the same run, on the same
// machine. Servers and the load generator each run in their own process; this one only
// orchestrates. Prints a line per phase and a table at the end, writes bench/results/latest.json,
// and asserts nothing (targets are informational).
//   BENCH_SECONDS (5)        length of each measured phase
//   BENCH_ROUNDS (3)         measured rounds per pair, after one warm-up round; the median ratio is kept
//   BENCH_SLICE (1)          the two sides of a pair alternate every this many seconds within a round
//   BENCH_DB (both)          sqlite, postgres or both: the databases the login, GET /api/user, history and token pairs run on
//                            (PostgreSQL: TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres;
//                            skipped with a word when unreachable)
//   BENCH_LOGIN_CONCURRENCY  logins in flight (default 2 × cores)
//   BENCH_READ_CONCURRENCY   GET /api/user requests in flight (default 16)
//   BENCH_ONLY (all)         logins, reads, history, tokens, scale or lighthouse: measure that part only
//   BENCH_HISTORY_EVENTS (1000)  security events of the account whose history the history part reads
//   BENCH_TOKEN_CONCURRENCY (8)  token requests in flight in the tokens part (bench/tokens.ts)
//   BENCH_TOKEN_SECONDS (3), BENCH_TOKEN_ROUNDS (3)  its phases and rounds, so that it takes about
//                            two and a half minutes (BENCH_SECONDS and BENCH_ROUNDS apply when they are set)
//   BENCH_SCALE_ACCOUNTS (1000000)  accounts of the scale part's large database, against 10,000
//   BENCH_SCALE_CONCURRENCY  GET /api/user requests in flight in the scale part (default cores)
//   BENCH_CPU_PROF (off)     1: the Tessera servers write V8 CPU profiles to bench/results/profiles/
//   BENCH_LIGHTHOUSE_RUNS (5)  Lighthouse runs per variant (mobile preset, /login/email, needs dist/); the median is kept
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEVICE_ID_HEADER } from '../contract/constants.ts';
import { DEMO_PASSWORD } from '../server/seed/demo.ts';
import { postgresReachable } from '../server/testing/harness.ts';
import { firstLoadBreakdown, firstLoadJs } from './bundle.ts';
import { lighthouseRows, lighthouseVariants } from './lighthouse.ts';
import type { LoadJob, LoadResult, RequestSpec } from './load.ts';
import { createScaleDatabase, sampleSessions, timeLookups, type Timing } from './scale.ts';
import { reported, type Row as BenchRow } from './rows.ts';
import { measureTokens } from './tokens.ts';
import { BENCH_USERS, benchEmail } from './users.ts';

const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const CORES = availableParallelism();
const SECONDS = env('BENCH_SECONDS', 5);
const ROUNDS = Math.max(1, env('BENCH_ROUNDS', 3));
const LOGIN_CONCURRENCY = env('BENCH_LOGIN_CONCURRENCY', 2 * CORES);
const READ_CONCURRENCY = env('BENCH_READ_CONCURRENCY', 16);
const SLICE = env('BENCH_SLICE', 1);
type Database = 'sqlite' | 'postgres';
const DBS: Database[] =
  process.env.BENCH_DB === 'sqlite' || process.env.BENCH_DB === 'postgres'
    ? [process.env.BENCH_DB]
    : ['sqlite', 'postgres'];
const DB_NAMES: Record<Database, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** The database of the pair being measured: on PostgreSQL its processes work for the server. */
let measuring: Database = 'sqlite';
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const ONLY = process.env.BENCH_ONLY; // logins, reads, history, tokens, scale or lighthouse: that part only
const runs = (part: 'logins' | 'reads' | 'history' | 'tokens' | 'scale' | 'lighthouse') => !ONLY || ONLY === part;
const HISTORY_EVENTS = env('BENCH_HISTORY_EVENTS', 1000);
const TOKEN_CONCURRENCY = env('BENCH_TOKEN_CONCURRENCY', 8);
const TOKEN_SECONDS = env('BENCH_TOKEN_SECONDS', process.env.BENCH_SECONDS ? SECONDS : 3);
const TOKEN_ROUNDS = Math.max(1, env('BENCH_TOKEN_ROUNDS', process.env.BENCH_ROUNDS ? ROUNDS : 3));
const LIGHTHOUSE_RUNS = Math.max(1, env('BENCH_LIGHTHOUSE_RUNS', 5));
const SCALE_ACCOUNTS = env('BENCH_SCALE_ACCOUNTS', 1_000_000);
const SCALE_BASE = 10_000;
const SCALE_CONCURRENCY = env('BENCH_SCALE_CONCURRENCY', CORES);
/** Sessions made for sampled accounts, and look-ups timed on each database. */
const SCALE_SESSIONS = 1000;
const SCALE_LOOKUPS = 5000;
const here = import.meta.dirname;
const resultsDir = join(here, 'results');
const MB = 1024 * 1024;
/** Keycloak's published sizing: about 15 password sign-ins per second per vCPU with Argon2id. */
const KEYCLOAK_SIGN_INS_PER_VCPU = 15;
/** Cores used by other processes above which a round counts as disturbed. */
const DISTURBED = 0.2;

const t0 = performance.now();
const step = (text: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${text}`);

// ---- child processes -------------------------------------------------------------------------

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
// Bounded time whatever happens: two sides per round, three pairs per database and the scale one, plus
// start-up and seeding (the scale part's million accounts take one to three minutes on two cores; a
// Lighthouse run up to a minute).
const budgetMs =
  ((3 * DBS.length + 1) * (ROUNDS + 1) * (2 * SECONDS + 2 * Math.ceil(SECONDS / SLICE)) +
    120 +
    (runs('scale') ? 600 : 0) +
    (runs('lighthouse') ? 2 * LIGHTHOUSE_RUNS * 60 : 0) +
    // Two pairs per database, each with its server's start.
    (runs('history') ? 2 * DBS.length * ((ROUNDS + 1) * (2 * SECONDS + 2 * Math.ceil(SECONDS / SLICE)) + 30) : 0) +
    // Two grants per database, each side minting (up to some 30 s) before its phase.
    (runs('tokens') ? 2 * DBS.length * (TOKEN_ROUNDS + 1) * 2 * (TOKEN_SECONDS + 30) + 60 : 0)) *
  1000;
setTimeout(() => {
  console.error(`bench: still running after ${budgetMs / 1000} s, giving up`);
  process.exit(2);
}, budgetMs).unref();

function spawn(file: string, args: string[], execArgv: string[] = [], env: Record<string, string> = {}): ChildProcess {
  const child = fork(join(here, file), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv,
    env: { ...process.env, ...env },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

type Server = { child: ChildProcess; port: number; pid: number; /** a Tessera server's database */ database?: string };

async function startServer(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const execArgv =
    CPU_PROF && args[0] === 'tessera' ? ['--cpu-prof', '--cpu-prof-dir', join(resultsDir, 'profiles')] : [];
  const child = spawn('server-child.ts', args, execArgv, env);
  const { port, database } = await new Promise<{ port: number; database?: string }>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number; database?: string }) =>
      m.type === 'ready' ? resolve(m) : reject(new Error(`unexpected ${m.type}`)),
    );
    child.once('exit', (code) => reject(new Error(`server ${args.join(' ')} exited with ${code} before it was ready`)));
  });
  return { child, port, pid: child.pid!, database };
}

/** Peak resident memory of a process so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.send({ type: 'stop' });
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** CPU time (user + system) of a process, or of one of its threads, in ms. */
function cpuMs(pid: number, tid?: number): number {
  const stat = readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks of 10 ms
}

/** CPU time the whole machine spent busy (all cores), in ms. */
function machineBusyMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number);
  const idle = ticks[3]! + ticks[4]!; // idle, iowait
  return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle) * 10;
}

/** PostgreSQL's own processes: on PostgreSQL they serve the server under test. */
function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    });
}

/** CPU time of each process, in ms (one that just exited is left out). */
function cpuOfEach(pids: number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      times.set(pid, cpuMs(pid));
    } catch {
      // exited meanwhile
    }
  }
  return times;
}

/** CPU time the processes spent since `before`, by process, so that one that exited meanwhile (a
 * PostgreSQL backend whose connection closed) takes nothing away from the others. */
function cpuSince(before: Map<number, number>, pids: number[]): number {
  let spent = 0;
  for (const [pid, ms] of cpuOfEach(pids)) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

/** Cores kept busy by processes other than this benchmark's, between two readings. */
function othersMeter() {
  const ours = () => [
    process.pid,
    ...[...children].map((c) => c.pid!),
    ...(measuring === 'postgres' ? postgresPids() : []),
  ];
  const start = { machine: machineBusyMs(), ours: cpuOfEach(ours()), at: performance.now() };
  return () =>
    Math.max(0, (machineBusyMs() - start.machine - cpuSince(start.ours, ours())) / (performance.now() - start.at));
}

const loader = spawn('load.ts', []);
let messages = 0;
function ask(message: { key: string; job: LoadJob } | { finish: string }): Promise<LoadResult | undefined> {
  const id = ++messages;
  return new Promise((resolve, reject) => {
    const onMessage = (m: { id: number; result?: LoadResult; error?: string }) => {
      if (m.id !== id) return;
      loader.off('message', onMessage);
      loader.off('exit', onExit);
      if (m.error) reject(new Error(`load generator: ${m.error}`));
      else resolve(m.result);
    };
    const onExit = (code: number | null) => reject(new Error(`load generator exited with ${code}`));
    loader.on('message', onMessage);
    loader.once('exit', onExit);
    loader.send({ id, ...message });
  });
}

// ---- measuring ---------------------------------------------------------------------------------

type Side = { name: string; job: (seconds: number) => LoadJob; /** a server whose CPU time to account */ pid?: number };
type Round = {
  a: LoadResult;
  b: LoadResult;
  ratio: number;
  serverCpu?: { mainMsPerRequest: number; cores: number; loadGeneratorCores: number; postgresCores?: number };
  /** Cores used by other processes on the machine meanwhile (above DISTURBED, the round is set aside). */
  otherCores: number;
};
type Pair = Round & { rounds: Round[] };

const describe = (r: LoadResult) => {
  const failed = r.requests - r.ok;
  const statuses = failed > 0 ? ` (${failed} not 2xx: ${JSON.stringify(r.statuses)})` : '';
  return `${r.perSecond.toFixed(1)}/s, p99 ${r.p99Ms.toFixed(2)} ms${statuses}`;
};

/** A warm-up round, then ROUNDS rounds. In each round both sides run SECONDS in all, interleaved in
 * slices of about SLICE seconds, so that both see the same machine even when other work comes and
 * goes on it. The round with the median ratio a/b (throughput, unless `ratioOf` says otherwise) is kept. */
async function alternate(
  label: string,
  a: Side,
  b: Side,
  ratioOf = (ra: LoadResult, rb: LoadResult) => ra.perSecond / rb.perSecond,
): Promise<Pair> {
  const slices = Math.max(1, Math.round(SECONDS / SLICE));
  const rounds: Round[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const keys = [`${label} ${round} a`, `${label} ${round} b`];
    let mainCpu = 0;
    let processCpu = 0;
    let loaderCpu = 0;
    let postgresCpu = 0;
    const postgres = () => (measuring === 'postgres' ? postgresPids() : []);
    const others = othersMeter();
    for (let slice = 0; slice < slices; slice++) {
      const order = slice % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) {
        const side = which === 0 ? a : b;
        const before = side.pid ? [cpuMs(side.pid, side.pid), cpuMs(side.pid), cpuMs(loader.pid!)] : null;
        const postgresBefore = side.pid ? cpuOfEach(postgres()) : null;
        await ask({ key: keys[which]!, job: side.job(SECONDS / slices) });
        if (before) {
          mainCpu += cpuMs(side.pid!, side.pid) - before[0]!;
          processCpu += cpuMs(side.pid!) - before[1]!;
          loaderCpu += cpuMs(loader.pid!) - before[2]!;
          postgresCpu += cpuSince(postgresBefore!, postgres());
        }
      }
    }
    const otherCores = others();
    const [ra, rb] = [(await ask({ finish: keys[0]! }))!, (await ask({ finish: keys[1]! }))!];
    const serverPid = a.pid ?? b.pid;
    const served = a.pid ? ra : rb;
    const result: Round = {
      a: ra,
      b: rb,
      ratio: ratioOf(ra, rb),
      otherCores,
      ...(serverPid
        ? {
            serverCpu: {
              mainMsPerRequest: mainCpu / served.requests,
              cores: processCpu / 1000 / served.seconds,
              loadGeneratorCores: loaderCpu / 1000 / served.seconds,
              ...(measuring === 'postgres' ? { postgresCores: postgresCpu / 1000 / served.seconds } : {}),
            },
          }
        : {}),
    };
    const cpu = result.serverCpu
      ? ` | server ${result.serverCpu.cores.toFixed(2)} cores, its main thread ${(result.serverCpu.mainMsPerRequest * 1000).toFixed(0)} µs/request; load generator ${result.serverCpu.loadGeneratorCores.toFixed(2)} cores${
          result.serverCpu.postgresCores === undefined
            ? ''
            : `; PostgreSQL ${result.serverCpu.postgresCores.toFixed(2)} cores`
        }`
      : '';
    const busy = otherCores > DISTURBED ? ` | other processes used ${otherCores.toFixed(1)} cores: disturbed` : '';
    step(
      `${label}, ${round === 0 ? 'warm-up' : `round ${round}/${ROUNDS}`}: ${a.name} ${describe(ra)} | ${b.name} ${describe(rb)} | ratio ${result.ratio.toFixed(2)}${cpu}${busy}`,
    );
    if (round > 0) rounds.push(result);
  }
  // Rounds that other work on the machine disturbed count only when no round was quiet.
  const quiet = rounds.filter((r) => r.otherCores <= DISTURBED);
  const kept = quiet.length > 0 ? quiet : rounds;
  const median = kept.toSorted((x, y) => x.ratio - y.ratio)[Math.floor(kept.length / 2)]!;
  return { ...median, rounds };
}

const headers = (extra: Record<string, string> = {}) => ({ [DEVICE_ID_HEADER]: 'bench-device-0001', ...extra });
const loginRequest = (i: number): RequestSpec => ({
  method: 'POST',
  path: '/api/token',
  headers: headers({ 'content-type': 'application/json' }),
  body: JSON.stringify({ username: benchEmail(i), password: DEMO_PASSWORD }),
});

/** Bench user `i` signs in with the password: the server's answer, which must be a success. */
async function signedIn(port: number, i: number): Promise<Response> {
  const spec = loginRequest(i);
  const answer = await fetch(`http://127.0.0.1:${port}${spec.path}`, {
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
  });
  if (answer.status !== 200)
    throw new Error(`sign-in of ${benchEmail(i)} answered ${answer.status}: ${await answer.text()}`);
  return answer;
}

async function signIn(port: number, i: number): Promise<string> {
  return ((await (await signedIn(port, i)).json()) as { access_token: string }).access_token;
}

step(
  `${CORES} cores, ${SECONDS} s phases, ${ROUNDS} rounds + warm-up, ${runs('logins') || runs('reads') || runs('history') || runs('tokens') ? DBS.join(' and ') : 'no server pairs'}, node ${process.version}`,
);

type Row = BenchRow & {
  /** CPU time of the server's main thread per request, in µs (its CPU profile says where it goes). */
  mainUs?: number;
};
const mainUs = (p: Pair) => (p.serverCpu ? p.serverCpu.mainMsPerRequest * 1000 : undefined);
/** A pair's throughput against its baseline's, whose ratio is to reach `least`. */
const throughput = (measurement: string, pair: Pair, least: number): Row => ({
  measurement,
  value: pair.a.perSecond,
  baseline: pair.b.perSecond,
  unit: '/s',
  target: `ratio ≥ ${least}`,
  meets: pair.ratio >= least,
  mainUs: mainUs(pair),
});
const rows: Row[] = [];
const results: Record<string, unknown> = {};
const spreads: string[] = [];
const spread = (name: string, p: Pair) => {
  const disturbed = p.rounds.filter((r) => r.otherCores > DISTURBED).length;
  const range = `${Math.min(...p.rounds.map((r) => r.ratio)).toFixed(2)}–${Math.max(...p.rounds.map((r) => r.ratio)).toFixed(2)}`;
  spreads.push(
    `${name} ${range}${disturbed ? ` (${disturbed} of ${p.rounds.length} rounds disturbed by other processes${disturbed === p.rounds.length ? ': figures unreliable, run again on a quiet machine' : ', set aside'})` : ''}`,
  );
};

// 1. Password logins over HTTP against raw Argon2id verifications at concurrency = cores, on each
// database, with the same targets.
async function measureLogins(db: Database) {
  measuring = db;
  const on = DB_NAMES[db];
  step(`starting the Tessera server (fresh ${on} database, demo users and ${BENCH_USERS} benchmark users)`);
  const server = await startServer(['tessera', db]);
  const requests = Array.from({ length: BENCH_USERS }, (_, i) => loginRequest(i));
  const logins = await alternate(
    `logins on ${on}`,
    {
      name: 'HTTP logins',
      pid: server.pid,
      job: (seconds) => ({ kind: 'http', port: server.port, seconds, concurrency: LOGIN_CONCURRENCY, requests }),
    },
    {
      name: 'Argon2id bound',
      job: (seconds) => ({ kind: 'argon2', seconds, concurrency: CORES, password: DEMO_PASSWORD }),
    },
  );
  const rss = peakRss(server.pid);
  await stopServer(server);
  const perCore = logins.a.perSecond / Math.max(logins.serverCpu!.cores, 0.01);
  step(
    `context: Keycloak publishes about ${KEYCLOAK_SIGN_INS_PER_VCPU} password sign-ins/s per vCPU with Argon2id; Tessera on ${on} did ` +
      `${logins.a.perSecond.toFixed(0)}/s on this ${CORES}-core machine (load generator included), about ${perCore.toFixed(0)}/s per core its server process used`,
  );
  rows.push(
    throughput(`password logins/s vs raw Argon2id verifications/s, ${on}`, logins, 0.9),
    reported(`login p99 latency vs one Argon2id verification (p50), ${on}`, logins.a.p99Ms, ' ms', logins.b.p50Ms),
    {
      measurement: `server peak RSS under login load, ${on}`,
      value: rss / MB,
      baseline: null,
      unit: ' MB',
      target: '≤ 300 MB',
      meets: rss <= 300 * MB,
    },
  );
  spread(`logins on ${on}`, logins);
  Object.assign(results, {
    [`logins_${db}`]: logins,
    [`loginsPerServerCore_${db}`]: perCore,
    [`loginPeakRssBytes_${db}`]: rss,
  });
}

// 2. Token-authenticated GET /api/user against two baselines answering the same JSON: a minimal
// Fastify route doing the same work the leanest way (the token's hash, the same statement through
// the same driver on the same database: server-child.ts same-work), and, for information, a bare
// Fastify route answering a constant.
async function measureReads(db: Database) {
  measuring = db;
  const on = DB_NAMES[db];
  step(`starting a Tessera server on ${on}, a same-work server on its database and a bare Fastify server`);
  const server = await startServer(['tessera', db]);
  const tokens = await Promise.all(Array.from({ length: 4 }, (_, i) => signIn(server.port, i)));
  const requests = tokens.map((token) => ({
    method: 'GET',
    path: '/api/user',
    headers: headers({ authorization: `Bearer ${token}` }),
  }));
  const bodyOf = async (port: number) => {
    const answer = await fetch(`http://127.0.0.1:${port}/api/user`, { headers: requests[0]!.headers });
    const body = await answer.text();
    if (answer.status !== 200) throw new Error(`GET /api/user on port ${port} answered ${answer.status}: ${body}`);
    return body;
  };
  const profileBody = await bodyOf(server.port);
  const payloadFile = join(resultsDir, 'profile-payload.json');
  writeFileSync(payloadFile, profileBody);
  const [bare, sameWork] = await Promise.all([
    startServer(['bare', payloadFile]),
    startServer(['same-work', server.database!]),
  ]);
  try {
    const sameBody = await bodyOf(sameWork.port);
    if (sameBody !== profileBody)
      throw new Error(`the same-work server answers other JSON than Tessera:\n${sameBody}\n${profileBody}`);
    step(
      `GET /api/user answers ${profileBody.length} bytes of JSON; the same-work server answers the same, and so does the bare handler`,
    );
    const side = (name: string, target: Server, pid?: number): Side => ({
      name,
      pid,
      job: (seconds) => ({ kind: 'http', port: target.port, seconds, concurrency: READ_CONCURRENCY, requests }),
    });
    const tessera = side('Tessera', server, server.pid);
    const same = await alternate(`GET /api/user on ${on}, same work`, tessera, side('same-work', sameWork));
    const reads = await alternate(`GET /api/user on ${on}, constant`, tessera, side('bare Fastify', bare));
    const [rss, sameRss, bareRss] = [peakRss(server.pid), peakRss(sameWork.pid), peakRss(bare.pid)];
    // For sizing: calls per core the server used, and per core with PostgreSQL's (the pair kept, against the same work).
    const cpu = same.serverCpu!;
    const perCore = same.a.perSecond / Math.max(cpu.cores, 0.01);
    const perCoreWithDatabase = same.a.perSecond / Math.max(cpu.cores + (cpu.postgresCores ?? 0), 0.01);
    step(
      `GET /api/user on ${on}: Tessera did ${same.a.perSecond.toFixed(0)}/s on this ${CORES}-core machine (load generator included), ` +
        `about ${perCore.toFixed(0)}/s per core its server process used` +
        (cpu.postgresCores === undefined ? '' : `, ${perCoreWithDatabase.toFixed(0)}/s per core counting PostgreSQL's`),
    );
    rows.push(
      throughput(`GET /api/user req/s vs same-work baseline req/s, ${on}`, same, 0.7),
      {
        measurement: `GET /api/user p99 latency at ${READ_CONCURRENCY} in flight vs the same-work baseline's, ${on}`,
        value: same.a.p99Ms,
        baseline: same.b.p99Ms,
        unit: ' ms',
        target: '≤ 3 ms',
        meets: same.a.p99Ms <= 3,
      },
      {
        ...reported(
          `GET /api/user req/s vs bare Fastify (a constant), ${on}`,
          reads.a.perSecond,
          '/s',
          reads.b.perSecond,
        ),
        mainUs: mainUs(reads),
      },
      reported(`GET /api/user p99 latency vs bare Fastify p99, ${on}`, reads.a.p99Ms, ' ms', reads.b.p99Ms),
      reported(`peak RSS under GET /api/user load, Tessera vs same-work, ${on}`, rss / MB, ' MB', sameRss / MB),
      reported(`peak RSS of the bare Fastify server, ${on}`, bareRss / MB, ' MB'),
    );
    spread(`GET /api/user on ${on} vs same work`, same);
    spread(`GET /api/user on ${on} vs a constant`, reads);
    Object.assign(results, {
      [`reads_${db}`]: reads,
      [`readsSameWork_${db}`]: same,
      [`readsPerServerCore_${db}`]: perCore,
      [`readsPerCoreWithDatabase_${db}`]: perCoreWithDatabase,
      [`readPeakRssBytes_${db}`]: rss,
      [`sameWorkPeakRssBytes_${db}`]: sameRss,
      [`barePeakRssBytes_${db}`]: bareRss,
    });
  } finally {
    await Promise.all([stopServer(server), stopServer(bare), stopServer(sameWork)]);
  }
}

// 2b. The security history's reads for an account with HISTORY_EVENTS security events: GET
// /api/history (its first page: the newest 20 of the last 30 days, each described by its device and
// address) and GET /api/devices, each against a bare Fastify handler answering the same JSON, as the
// reads part measures GET /api/user.
async function measureHistory(db: Database) {
  measuring = db;
  const on = DB_NAMES[db];
  step(`starting a Tessera server on ${on} with ${HISTORY_EVENTS} security events for one account`);
  const server = await startServer(['tessera', db], { BENCH_HISTORY_EVENTS: String(HISTORY_EVENTS) });
  try {
    const token = await signIn(server.port, 0);
    const auth = headers({ authorization: `Bearer ${token}` });
    for (const path of ['/api/history', '/api/devices']) {
      const name = `GET ${path}`;
      const answer = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: auth });
      const body = await answer.text();
      if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${body}`);
      const payloadFile = join(resultsDir, `${path.slice('/api/'.length)}-payload.json`);
      writeFileSync(payloadFile, body);
      const bare = await startServer(['bare', payloadFile, path]);
      step(`${name} answers ${body.length} bytes of JSON; the bare handler answers the same`);
      const requests = [{ method: 'GET', path, headers: auth }];
      const pair = await alternate(
        `${name} on ${on}`,
        {
          name: 'Tessera',
          pid: server.pid,
          job: (seconds) => ({ kind: 'http', port: server.port, seconds, concurrency: READ_CONCURRENCY, requests }),
        },
        {
          name: 'bare Fastify',
          job: (seconds) => ({ kind: 'http', port: bare.port, seconds, concurrency: READ_CONCURRENCY, requests }),
        },
      ).finally(() => stopServer(bare));
      rows.push(
        {
          ...reported(
            `${name} req/s vs bare Fastify req/s, ${HISTORY_EVENTS} events, ${on}`,
            pair.a.perSecond,
            '/s',
            pair.b.perSecond,
          ),
          mainUs: mainUs(pair),
        },
        reported(`${name} p99 latency vs bare Fastify p99, ${on}`, pair.a.p99Ms, ' ms', pair.b.p99Ms),
      );
      spread(`${name} on ${on}`, pair);
      results[`history_${path.slice('/api/'.length)}_${db}`] = pair;
    }
  } finally {
    await stopServer(server);
  }
}

// 3. Scale, on PostgreSQL whatever BENCH_DB says: the sign-in's account look-up and GET /api/user
// with SCALE_ACCOUNTS accounts against SCALE_BASE, as ratios of medians (large ÷ small). Both
// databases are filled in bulk (bench/scale.ts) and measured side by side in the same run.
//  - Look-up: findByLoginName, the query sign-in runs before Argon2id, timed in this process on
//    both databases in turn (Argon2id's cost does not depend on the number of accounts, and would
//    hide the query's in its noise: one verification takes some 40 times longer).
//  - GET /api/user: token-authenticated, over HTTP against a server on each database, tokens of
//    sessions made for accounts sampled at random; median latency at SCALE_CONCURRENCY in flight.
async function measureScale() {
  measuring = 'postgres';
  if (!(await postgresReachable())) {
    if (ONLY === 'scale') throw new Error('the scale benchmark needs PostgreSQL (TEST_POSTGRES_URL)');
    step('PostgreSQL not reachable: scale part skipped');
    return;
  }
  const count = (n: number) => n.toLocaleString('en');
  step(`scale: two PostgreSQL databases, ${count(SCALE_BASE)} and ${count(SCALE_ACCOUNTS)} accounts, filled in bulk`);
  const seed = (accounts: number) =>
    createScaleDatabase(accounts, (done) => step(`seeding accounts: ${count(done)} / ${count(accounts)}`));
  const small = await seed(SCALE_BASE);
  const large = await seed(SCALE_ACCOUNTS).catch(async (error) => {
    await small.drop();
    throw error;
  });
  try {
    step(`timing the sign-in look-up, ${count(SCALE_LOOKUPS)} times on each database`);
    const [lookupSmall, lookupLarge] = (await timeLookups([small, large], SCALE_LOOKUPS)) as [Timing, Timing];
    step(
      `sign-in look-up: median ${lookupLarge.p50Ms.toFixed(3)} ms at ${count(SCALE_ACCOUNTS)} accounts, ${lookupSmall.p50Ms.toFixed(3)} ms at ${count(SCALE_BASE)}` +
        ` (ratio ${(lookupLarge.p50Ms / lookupSmall.p50Ms).toFixed(2)}); p99 ${lookupLarge.p99Ms.toFixed(2)} ms, ${lookupSmall.p99Ms.toFixed(2)} ms`,
    );
    const [smallTokens, largeTokens] = await Promise.all([
      sampleSessions(small, SCALE_SESSIONS),
      sampleSessions(large, SCALE_SESSIONS),
    ]);
    const [smallServer, largeServer] = await Promise.all([
      startServer(['tessera', small.url]),
      startServer(['tessera', large.url]),
    ]);
    const reading =
      (server: Server, tokens: string[]) =>
      (seconds: number): LoadJob => ({
        kind: 'http',
        port: server.port,
        seconds,
        concurrency: SCALE_CONCURRENCY,
        requests: tokens.map((token) => ({
          method: 'GET',
          path: '/api/user',
          headers: headers({ authorization: `Bearer ${token}` }),
        })),
      });
    const reads = await alternate(
      'GET /api/user at scale',
      { name: `${count(SCALE_ACCOUNTS)} accounts`, pid: largeServer.pid, job: reading(largeServer, largeTokens) },
      { name: `${count(SCALE_BASE)} accounts`, job: reading(smallServer, smallTokens) },
      (ra, rb) => ra.p50Ms / rb.p50Ms,
    );
    await Promise.all([stopServer(smallServer), stopServer(largeServer)]);
    const versus = `${count(SCALE_ACCOUNTS)} accounts vs ${count(SCALE_BASE)}, PostgreSQL`;
    rows.push(
      {
        measurement: `sign-in look-up median, ${versus}`,
        value: lookupLarge.p50Ms,
        baseline: lookupSmall.p50Ms,
        unit: ' ms',
        target: 'ratio ≤ 1.25',
        meets: lookupLarge.p50Ms <= 1.25 * lookupSmall.p50Ms,
      },
      reported(`sign-in look-up p99, ${versus}`, lookupLarge.p99Ms, ' ms', lookupSmall.p99Ms),
      {
        measurement: `GET /api/user median latency, ${versus}`,
        value: reads.a.p50Ms,
        baseline: reads.b.p50Ms,
        unit: ' ms',
        target: 'ratio ≤ 1.25',
        meets: reads.ratio <= 1.25,
      },
      reported(`GET /api/user p99 latency, ${versus}`, reads.a.p99Ms, ' ms', reads.b.p99Ms),
    );
    spread('GET /api/user at scale (median latency ratio)', reads);
    Object.assign(results, {
      scale: {
        accounts: SCALE_ACCOUNTS,
        base: SCALE_BASE,
        concurrency: SCALE_CONCURRENCY,
        lookups: { large: lookupLarge, small: lookupSmall },
        reads,
      },
    });
  } finally {
    await Promise.all([small.drop(), large.drop()]);
  }
}

mkdirSync(resultsDir, { recursive: true });
// The login and GET /api/user pairs, on each database asked for (PostgreSQL when reachable).
for (const db of DBS) {
  if (!runs('logins') && !runs('reads') && !runs('history')) break;
  if (db === 'postgres' && !(await postgresReachable())) {
    step('PostgreSQL not reachable: its login, GET /api/user and history pairs skipped');
    continue;
  }
  if (runs('logins')) await measureLogins(db);
  if (runs('reads')) await measureReads(db);
  if (runs('history')) await measureHistory(db);
}
// 3b. OIDC token endpoint: code exchanges and refresh grants, Tessera against oidc-provider alone (bench/tokens.ts).
if (runs('tokens')) {
  const tokens = await measureTokens({
    seconds: TOKEN_SECONDS,
    rounds: TOKEN_ROUNDS,
    cores: CORES,
    concurrency: TOKEN_CONCURRENCY,
    databases: DBS,
    step,
    postgresReachable,
    startServer: (args) => startServer(args),
    postgresCpu(db) {
      if (db !== 'postgres') return () => 0;
      const before = cpuOfEach(postgresPids());
      return () => cpuSince(before, postgresPids());
    },
    others(db) {
      measuring = db;
      return othersMeter();
    },
    stopServer: (server) => stopServer(server as Server),
    load: async (key, job) => {
      await ask({ key, job });
      return (await ask({ finish: key }))!;
    },
    async sessionCookie(port, i) {
      return (await signedIn(port, i)).headers
        .getSetCookie()
        .find((c) => c.startsWith('tessera_token='))!
        .split(';')[0]!;
    },
  });
  rows.push(...tokens.rows);
  spreads.push(...tokens.spreads);
  Object.assign(results, tokens.results);
}
if (runs('scale')) await measureScale();
loader.disconnect();

// 4. First-load JavaScript of /login/email, from the last build (a budget: docs/decisions/performance-budgets.md).
const bundle = firstLoadJs(join(here, '..', 'dist'));
step(
  bundle
    ? `first-load JS of /login/email: ${bundle.files.length} files in dist/`
    : 'no dist/ build: first-load JS skipped (npm run build)',
);
if (bundle) {
  rows.push({
    measurement: `first-load JS of /login/email, gzipped (${bundle.files.length} files)`,
    value: bundle.gzipBytes / 1024,
    baseline: 145,
    unit: ' KB',
    target: '≤ 145 KB',
    meets: bundle.gzipBytes <= 145 * 1024,
  });
  // What the first visit moves as sent (the page, compressed, with what is drawn into it) is the
  // Lighthouse part's transfer figure, taken from the visit itself.
  // By package and by our folders, from the source maps.
  const owners = firstLoadBreakdown(join(here, '..', 'dist')) ?? [];
  step(
    `first-load JS by owner (KB gzipped): ${owners.map((o) => `${o.owner} ${(o.gzipBytes / 1024).toFixed(1)}`).join(', ')}`,
  );
}

// 5. Lighthouse, mobile preset, on the first visit of /login/email of both variants (bench/lighthouse.ts).
if (runs('lighthouse')) {
  const dist = join(here, '..', 'dist');
  if (!existsSync(join(dist, 'index.html'))) step('no dist/ build: Lighthouse skipped (npm run build)');
  else {
    step(`Lighthouse: a Tessera server serving dist/, ${LIGHTHOUSE_RUNS} runs per variant`);
    const server = await startServer(['tessera', 'sqlite', dist]);
    const lighthouse = await lighthouseVariants(
      server.port,
      LIGHTHOUSE_RUNS,
      join(resultsDir, 'lighthouse'),
      step,
    ).finally(() => stopServer(server));
    rows.push(...lighthouseRows(lighthouse.variants));
    results.lighthouse = lighthouse;
  }
}

// ---- report ------------------------------------------------------------------------------------

const ratio = (r: Row) => (r.baseline ? r.value / r.baseline : null);
const fmt = (n: number) => (Number.isInteger(n) || n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)); // whole numbers (scores) without decimals
const table = [
  ['measurement', 'value', 'baseline', 'ratio', 'target', 'meets target', 'main thread µs/request'],
  ...rows.map((r) => [
    r.measurement,
    `${fmt(r.value)}${r.unit}`,
    r.baseline === null ? '—' : `${fmt(r.baseline)}${r.unit}`,
    ratio(r) === null ? '—' : ratio(r)!.toFixed(3),
    r.target,
    r.meets === null ? '—' : r.meets ? 'yes' : 'NO',
    r.mainUs === undefined ? '—' : r.mainUs.toFixed(0),
  ]),
];
const widths = table[0]!.map((_, c) => Math.max(...table.map((line) => line[c]!.length)));
const line = (cells: string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
console.log(`\n${line(table[0]!)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const cells of table.slice(1)) console.log(line(cells));
if (spreads.length > 0) console.log(`\nRatios over the rounds: ${spreads.join('; ')}.`);
console.log(
  `${CORES} cores, ${DBS.join(' and ')}, ${SECONDS} s × ${ROUNDS} rounds (median ratio kept); login concurrency ${LOGIN_CONCURRENCY}, read concurrency ${READ_CONCURRENCY}. Targets are informational.`,
);

const resultsFile = join(resultsDir, 'latest.json');
writeFileSync(
  resultsFile,
  `${JSON.stringify(
    {
      at: new Date().toISOString(),
      node: process.version,
      cores: CORES,
      databases: DBS,
      seconds: SECONDS,
      rounds: ROUNDS,
      loginConcurrency: LOGIN_CONCURRENCY,
      readConcurrency: READ_CONCURRENCY,
      rows: rows.map((r) => ({ ...r, ratio: ratio(r) })),
      ...results,
      bundle,
    },
    null,
    2,
  )}\n`,
);
step(`results written to ${resultsFile}${CPU_PROF ? `; CPU profiles in ${join(resultsDir, 'profiles')}` : ''}`);

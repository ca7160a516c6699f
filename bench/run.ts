// npm run bench: each figure as a ratio against a baseline measured in the same run, on the same
// machine. Servers and the load generator each run in their own process; this one only
// orchestrates. Prints a line per phase and a table at the end, writes bench/results/latest.json,
// and asserts nothing (targets are informational).
//   BENCH_SECONDS (5)        length of each measured phase
//   BENCH_ROUNDS (3)         measured rounds per pair, after one warm-up round; the median is kept
//   BENCH_DB (sqlite)        sqlite or postgres (TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_LOGIN_CONCURRENCY  logins in flight (default 2 × cores)
//   BENCH_READ_CONCURRENCY   GET /api/user requests in flight (default 16)
//   BENCH_CPU_PROF (off)     1: the Tessera servers write V8 CPU profiles to bench/results/profiles/
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEVICE_ID_HEADER } from '../contract/constants.ts';
import { DEMO_PASSWORD } from '../server/seed/demo.ts';
import { firstLoadJs } from './bundle.ts';
import type { LoadJob, LoadResult, RequestSpec } from './load.ts';
import { BENCH_USERS, benchEmail } from './users.ts';

const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const CORES = availableParallelism();
const SECONDS = env('BENCH_SECONDS', 5);
const ROUNDS = Math.max(1, env('BENCH_ROUNDS', 3));
const LOGIN_CONCURRENCY = env('BENCH_LOGIN_CONCURRENCY', 2 * CORES);
const READ_CONCURRENCY = env('BENCH_READ_CONCURRENCY', 16);
const DB = process.env.BENCH_DB === 'postgres' ? 'postgres' : 'sqlite';
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const here = import.meta.dirname;
const resultsDir = join(here, 'results');
const MB = 1024 * 1024;

const t0 = performance.now();
const step = (text: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${text}`);

// ---- child processes -------------------------------------------------------------------------

const children = new Set<ChildProcess>();
process.on('exit', () => { for (const child of children) child.kill('SIGKILL'); });
// Bounded time whatever happens: two sides per round, two pairs, plus start-up and seeding.
const budgetMs = (2 * 2 * (ROUNDS + 1) * (SECONDS + 2) + 120) * 1000;
setTimeout(() => { console.error(`bench: still running after ${budgetMs / 1000} s, giving up`); process.exit(2); }, budgetMs).unref();

function spawn(file: string, args: string[], execArgv: string[] = []): ChildProcess {
  const child = fork(join(here, file), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

type Server = { child: ChildProcess; port: number; pid: number };

async function startServer(args: string[]): Promise<Server> {
  const execArgv = CPU_PROF && args[0] === 'tessera' ? ['--cpu-prof', '--cpu-prof-dir', join(resultsDir, 'profiles')] : [];
  const child = spawn('server-child.ts', args, execArgv);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve(m.port) : reject(new Error(`unexpected ${m.type}`))));
    child.once('exit', (code) => reject(new Error(`server ${args.join(' ')} exited with ${code} before it was ready`)));
  });
  return { child, port, pid: child.pid! };
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

const loader = spawn('load.ts', []);
let jobs = 0;
function runLoad(job: LoadJob): Promise<LoadResult> {
  const id = ++jobs;
  return new Promise((resolve, reject) => {
    const onMessage = (m: { id: number; result?: LoadResult; error?: string }) => {
      if (m.id !== id) return;
      loader.off('message', onMessage);
      loader.off('exit', onExit);
      if (m.error) reject(new Error(`load generator: ${m.error}`));
      else resolve(m.result!);
    };
    const onExit = (code: number | null) => reject(new Error(`load generator exited with ${code}`));
    loader.on('message', onMessage);
    loader.once('exit', onExit);
    loader.send({ id, job });
  });
}

// ---- measuring ---------------------------------------------------------------------------------

const describe = (r: LoadResult) => {
  const failed = r.requests - r.ok;
  const statuses = failed > 0 ? ` — ${failed} not 2xx: ${JSON.stringify(r.statuses)}` : '';
  return `${r.perSecond.toFixed(1)}/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${statuses}`;
};

type Pair = { a: LoadResult; b: LoadResult; rounds: Array<{ a: LoadResult; b: LoadResult }> };

/** Runs each side in turn, a warm-up round and then ROUNDS rounds, so that both see the same
 * machine; keeps each side's median round. */
async function alternate(label: string, names: [string, string], a: () => Promise<LoadResult>, b: () => Promise<LoadResult>): Promise<Pair> {
  const rounds: Pair['rounds'] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const name = round === 0 ? 'warm-up' : `round ${round}/${ROUNDS}`;
    const ra = await a();
    step(`${label}, ${name}: ${names[0]} ${describe(ra)}`);
    const rb = await b();
    step(`${label}, ${name}: ${names[1]} ${describe(rb)}`);
    if (round > 0) rounds.push({ a: ra, b: rb });
  }
  const median = (list: LoadResult[]) => list.toSorted((x, y) => x.perSecond - y.perSecond)[Math.floor(list.length / 2)]!;
  return { a: median(rounds.map((r) => r.a)), b: median(rounds.map((r) => r.b)), rounds };
}

const headers = (extra: Record<string, string> = {}) => ({ [DEVICE_ID_HEADER]: 'bench-device-0001', ...extra });
const loginRequest = (i: number): RequestSpec => ({
  method: 'POST', path: '/api/token', headers: headers({ 'content-type': 'application/json' }),
  body: JSON.stringify({ username: benchEmail(i), password: DEMO_PASSWORD }),
});

async function signIn(port: number, i: number): Promise<string> {
  const spec = loginRequest(i);
  const answer = await fetch(`http://127.0.0.1:${port}${spec.path}`, { method: spec.method, headers: spec.headers, body: spec.body });
  if (answer.status !== 200) throw new Error(`sign-in of ${benchEmail(i)} answered ${answer.status}: ${await answer.text()}`);
  return ((await answer.json()) as { access_token: string }).access_token;
}

step(`${CORES} cores, ${SECONDS} s phases, ${ROUNDS} rounds + warm-up, ${DB}, node ${process.version}`);

// 1. Password logins over HTTP against raw Argon2id verifications at concurrency = cores.
step(`starting the Tessera server (fresh ${DB} database, demo users and ${BENCH_USERS} benchmark users)`);
const loginServer = await startServer(['tessera', DB]);
const loginRequests = Array.from({ length: BENCH_USERS }, (_, i) => loginRequest(i));
const logins = await alternate('logins', ['HTTP logins', 'Argon2id bound'],
  () => runLoad({ kind: 'http', port: loginServer.port, seconds: SECONDS, concurrency: LOGIN_CONCURRENCY, requests: loginRequests }),
  () => runLoad({ kind: 'argon2', seconds: SECONDS, concurrency: CORES, password: DEMO_PASSWORD }));
const loginRss = peakRss(loginServer.pid);
await stopServer(loginServer);

// 2. Token-authenticated GET /api/user against a bare Fastify handler answering the same JSON.
step('starting a second Tessera server and a bare Fastify server');
const readServer = await startServer(['tessera', DB]);
const tokens = await Promise.all(Array.from({ length: 4 }, (_, i) => signIn(readServer.port, i)));
const readRequests = tokens.map((token) => ({ method: 'GET', path: '/api/user', headers: headers({ authorization: `Bearer ${token}` }) }));
const profileBody = await (await fetch(`http://127.0.0.1:${readServer.port}/api/user`, { headers: readRequests[0]!.headers })).text();
mkdirSync(resultsDir, { recursive: true });
const payloadFile = join(resultsDir, 'profile-payload.json');
writeFileSync(payloadFile, profileBody);
const bare = await startServer(['bare', payloadFile]);
step(`GET /api/user answers ${profileBody.length} bytes of JSON; the bare handler answers the same`);
const reads = await alternate('GET /api/user', ['Tessera', 'bare Fastify'],
  () => runLoad({ kind: 'http', port: readServer.port, seconds: SECONDS, concurrency: READ_CONCURRENCY, requests: readRequests }),
  () => runLoad({ kind: 'http', port: bare.port, seconds: SECONDS, concurrency: READ_CONCURRENCY, requests: readRequests }));
const readRss = peakRss(readServer.pid);
const bareRss = peakRss(bare.pid);
await Promise.all([stopServer(readServer), stopServer(bare)]);
loader.disconnect();

// 3. First-load JavaScript of /login/email, from the last build (DESIGN.md's third budget).
const bundle = firstLoadJs(join(here, '..', 'dist'));
step(bundle ? `first-load JS of /login/email: ${bundle.files.length} files in dist/` : 'no dist/ build: first-load JS skipped (npm run build)');

// ---- report ------------------------------------------------------------------------------------

type Row = { measurement: string; value: number; baseline: number | null; unit: string; target: string; meets: boolean | null };
const ratio = (r: Row) => (r.baseline ? r.value / r.baseline : null);
const rows: Row[] = [
  { measurement: 'password logins/s vs raw Argon2id verifications/s', value: logins.a.perSecond, baseline: logins.b.perSecond, unit: '/s', target: 'ratio ≥ 0.9', meets: logins.a.perSecond / logins.b.perSecond >= 0.9 },
  { measurement: 'login p99 latency vs one Argon2id verification (p50)', value: logins.a.p99Ms, baseline: logins.b.p50Ms, unit: ' ms', target: '—', meets: null },
  { measurement: 'GET /api/user req/s vs bare Fastify req/s', value: reads.a.perSecond, baseline: reads.b.perSecond, unit: '/s', target: 'ratio ≥ 0.5', meets: reads.a.perSecond / reads.b.perSecond >= 0.5 },
  { measurement: 'GET /api/user p99 latency vs bare Fastify p99', value: reads.a.p99Ms, baseline: reads.b.p99Ms, unit: ' ms', target: '—', meets: null },
  { measurement: 'server peak RSS under login load vs bare Fastify', value: loginRss / MB, baseline: bareRss / MB, unit: ' MB', target: '≤ 300 MB', meets: loginRss <= 300 * MB },
  { measurement: 'server peak RSS under GET /api/user load vs bare Fastify', value: readRss / MB, baseline: bareRss / MB, unit: ' MB', target: '—', meets: null },
];
if (bundle) {
  rows.push({ measurement: `first-load JS of /login/email, gzipped (${bundle.files.length} files)`, value: bundle.gzipBytes / 1024, baseline: 120, unit: ' KB', target: '≤ 120 KB', meets: bundle.gzipBytes <= 120 * 1024 });
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const table = [
  ['measurement', 'value', 'baseline', 'ratio', 'target', 'meets target'],
  ...rows.map((r) => [r.measurement, `${fmt(r.value)}${r.unit}`, r.baseline === null ? '—' : `${fmt(r.baseline)}${r.unit}`,
    ratio(r) === null ? '—' : ratio(r)!.toFixed(2), r.target, r.meets === null ? '—' : r.meets ? 'yes' : 'NO']),
];
const widths = table[0]!.map((_, c) => Math.max(...table.map((line) => line[c]!.length)));
const line = (cells: string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
console.log(`\n${line(table[0]!)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const cells of table.slice(1)) console.log(line(cells));
console.log(`\n${CORES} cores, ${DB}, ${SECONDS} s × ${ROUNDS} rounds (median kept); login concurrency ${LOGIN_CONCURRENCY}, read concurrency ${READ_CONCURRENCY}. Targets are informational.`);

const resultsFile = join(resultsDir, 'latest.json');
writeFileSync(resultsFile, `${JSON.stringify({
  at: new Date().toISOString(), node: process.version, cores: CORES, db: DB, seconds: SECONDS, rounds: ROUNDS,
  loginConcurrency: LOGIN_CONCURRENCY, readConcurrency: READ_CONCURRENCY,
  rows: rows.map((r) => ({ ...r, ratio: ratio(r) })),
  logins, reads, peakRssBytes: { login: loginRss, read: readRss, bare: bareRss }, bundle,
}, null, 2)}\n`);
step(`results written to ${resultsFile}${CPU_PROF ? `; CPU profiles in ${join(resultsDir, 'profiles')}` : ''}`);

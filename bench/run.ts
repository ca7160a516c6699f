// npm run bench: each figure as a ratio against a baseline measured in the same run, on the same
// machine. Prints a table and writes bench/results/latest.json; asserts nothing.
//   BENCH_SECONDS (default 5) — length of each measured phase; BENCH_ROUNDS (default 3) — rounds per pair.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { hash, verify } from '@node-rs/argon2';
import { DEVICE_ID_HEADER } from '../contract/constants.ts';
import { ARGON2_OPTIONS } from '../server/passwords/hashing.ts';
import { DEMO_PASSWORD } from '../server/seed/demo.ts';
import { firstLoadJs } from './bundle.ts';
import { load } from './load.ts';
import { BENCH_USERS, benchEmail } from './users.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CORES = availableParallelism();
const here = import.meta.dirname;

type Row = { measurement: string; value: number; baseline: number; unit: string; target: string; meets: boolean };
const rows: Row[] = [];
const step = (text: string) => console.log(`… ${text}`);

async function startChild(kind: 'tessera' | 'bare'): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(here, 'server-child.ts'), [kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve(m.port) : reject(new Error('unexpected message'))));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { child, port };
}

async function stopChild(child: ChildProcess): Promise<number> {
  const rss = await new Promise<number>((resolve) => {
    child.once('message', (m: { type: string; bytes: number }) => resolve(m.bytes));
    child.send({ type: 'rss' });
  });
  child.kill();
  return rss;
}

async function argon2Bound(): Promise<number> {
  const stored = await hash(DEMO_PASSWORD, ARGON2_OPTIONS);
  const deadline = performance.now() + SECONDS * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CORES }, async () => {
    while (performance.now() < deadline) {
      await verify(stored, DEMO_PASSWORD);
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

const headers = (extra: Record<string, string> = {}) => ({ [DEVICE_ID_HEADER]: 'bench-device-0001', ...extra });

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const median = (values: number[]) => values.toSorted((x, y) => x - y)[Math.floor(values.length / 2)]!;
/** Runs each side in turn, ROUNDS times, so that both see the same machine; keeps the median round. */
async function alternate<A extends { perSecond: number }, B extends { perSecond: number }>(label: string, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  const as: A[] = [];
  const bs: B[] = [];
  step(`${label}: warming up`);
  await a();
  await b();
  for (let round = 1; round <= ROUNDS; round++) {
    step(`${label}: round ${round} of ${ROUNDS}`);
    as.push(await a());
    bs.push(await b());
  }
  const pick = <T extends { perSecond: number }>(list: T[]) => list.find((x) => x.perSecond === median(list.map((y) => y.perSecond)))!;
  return [pick(as), pick(bs)];
}

step('starting the real server (fresh SQLite, demo and benchmark users)');
const tessera = await startChild('tessera');
const [logins, bound] = await alternate('password logins over HTTP vs raw Argon2id verifications', () => load(tessera.port, {
  seconds: SECONDS,
  concurrency: CORES * 2,
  request: (i) => ({
    method: 'POST', path: '/api/token', headers: headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ username: benchEmail(i % BENCH_USERS), password: DEMO_PASSWORD }),
  }),
}), async () => ({ perSecond: await argon2Bound() }));
const loginRss = await stopChild(tessera.child);
rows.push({ measurement: 'password logins/s ÷ Argon2id verifications/s', value: logins.perSecond, baseline: bound.perSecond, unit: '/s', target: '≥ 0.9', meets: logins.perSecond / bound.perSecond >= 0.9 });

step('starting a second real server and a bare Fastify server');
const second = await startChild('tessera');
const bare = await startChild('bare');
const tokenAnswer = await fetch(`http://127.0.0.1:${second.port}/api/token`, {
  method: 'POST', headers: headers({ 'content-type': 'application/json' }), body: JSON.stringify({ username: benchEmail(0), password: DEMO_PASSWORD }),
});
const token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
const [userReads, bareReads] = await alternate('token-authenticated GET /api/user vs bare Fastify',
  () => load(second.port, { seconds: SECONDS, concurrency: 16, request: () => ({ method: 'GET', path: '/api/user', headers: headers({ authorization: `Bearer ${token}` }) }) }),
  () => load(bare.port, { seconds: SECONDS, concurrency: 16, request: () => ({ method: 'GET', path: '/api/user', headers: {} }) }));
const userRss = await stopChild(second.child);
await stopChild(bare.child);
rows.push({ measurement: 'GET /api/user req/s ÷ bare Fastify req/s', value: userReads.perSecond, baseline: bareReads.perSecond, unit: '/s', target: '≥ 0.5', meets: userReads.perSecond / bareReads.perSecond >= 0.5 });

step('first-load JavaScript of /login/email (dist/, run `npm run build` first)');
const bundle = firstLoadJs(join(here, '..', 'dist'));
if (bundle) {
  rows.push({ measurement: `first-load JS, gzipped (${bundle.files.length} files)`, value: bundle.gzipBytes / 1024, baseline: 120, unit: ' KB', target: '≤ 1.0 of 120 KB', meets: bundle.gzipBytes / 1024 <= 120 });
}

const MB = 1024 * 1024;
const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));
console.log('\n| measurement | value | baseline | ratio | target | meets |\n|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.measurement} | ${fmt(r.value)}${r.unit} | ${fmt(r.baseline)}${r.unit} | ${(r.value / r.baseline).toFixed(2)} | ${r.target} | ${r.meets ? 'yes' : 'no'} |`);
console.log(`| GET /api/user p99 latency | ${userReads.p99Ms.toFixed(2)} ms | ${bareReads.p99Ms.toFixed(2)} ms (bare) | | | |`);
console.log(`| login p99 latency | ${logins.p99Ms.toFixed(1)} ms | | | | |`);
console.log(`| server peak RSS under login load | ${(loginRss / MB).toFixed(0)} MB | | | ≤ 300 MB | ${loginRss <= 300 * MB ? 'yes' : 'no'} |`);
console.log(`| server peak RSS under GET /api/user load | ${(userRss / MB).toFixed(0)} MB | | | | |`);

mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'latest.json'), JSON.stringify({
  at: new Date().toISOString(), seconds: SECONDS, cores: CORES, argon2PerSecond: bound.perSecond, logins, userReads, bareReads,
  loginPeakRssBytes: loginRss, userPeakRssBytes: userRss, rows,
}, null, 2));

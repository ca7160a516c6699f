// Lighthouse on the first visit of /login/email, both variants, with Lighthouse's default mobile
// preset (simulated slow 4G and a mid-range phone's CPU). The server is the real app serving the
// built dist/ with its Brotli twins (bench/server-child.ts); Chromium reaches it through the
// variants' *.localhost names, which it resolves to the loopback itself (Node does not, so the
// check below goes to 127.0.0.1 with a Host header). Each run has a fresh Chrome profile, so
// nothing is cached. Runs go one after the other, the variants taking turns, and the median of
// each figure over the runs is kept.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { variantOfHost } from '../contract/constants.ts';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../scripts/chromium.ts';
import { reported, type Row } from './rows.ts';

const CHROME_FLAGS = ['--headless=new', ...CHROMIUM_FLAGS];
const PATH = '/login/email';

export const LIGHTHOUSE_VARIANTS = [
  { name: 'Belgian', short: 'BE', host: 'account.localhost' },
  { name: 'Luxembourg', short: 'LU', host: 'account.lu.localhost' },
] as const;

/** The figures of one run: scores 0–100, times in ms, transfer in bytes (compressed, as sent). */
export type LighthouseFigures = {
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  transferBytes: number;
  requests: number;
};
type Run = LighthouseFigures & {
  seconds: number;
  benchmarkIndex: number;
  warnings: string[];
  /** Cores kept busy by processes other than the bench's (its server, Chromium, Lighthouse) during the run. */
  otherCores: number;
  /** Attempts that ended in a Lighthouse runtime error before this run. */
  failedAttempts: string[];
  /** Audits that cost points outside performance, as category: audit ids. */
  failing: string[];
};
export type LighthouseVariant = { variant: string; url: string; runs: Run[]; median: LighthouseFigures };
/** What the runs were made with, from the first report. */
type Setup = {
  lighthouse: string;
  browser: string;
  formFactor: string;
  throttlingMethod: string;
  throttling: object;
  screen: object;
};

/** The server's answer to a GET as Chromium would ask it, from Node: 127.0.0.1 with the variant's Host. */
function probe(port: number, host: string, path: string): Promise<{ status: number; encoding?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(
      { host: '127.0.0.1', port, path, headers: { host: `${host}:${port}`, 'accept-encoding': 'br, gzip' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            encoding: res.headers['content-encoding'],
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    )
      .on('error', reject)
      .end();
  });
}

/** Figures measured against a server that sends the files uncompressed would not be the first visit
 * users get: make sure the shell and its first script go out as Brotli, on both hosts. */
async function checkServer(port: number): Promise<void> {
  for (const { host } of LIGHTHOUSE_VARIANTS) {
    const shell = await probe(port, host, PATH);
    if (shell.status !== 200 || shell.encoding !== 'br')
      throw new Error(
        `lighthouse: ${host}${PATH} answered ${shell.status}, encoding ${shell.encoding ?? 'none'} (a dist/ build with Brotli twins expected)`,
      );
    // The entry: a script element's, or the one the drawn page asks for after its paint.
    const script = /(?:src="|\.src=")(\/assets\/[^"]+\.js)"/.exec(brotliDecompressSync(shell.body).toString())?.[1];
    const asset = script ? await probe(port, host, script) : null;
    if (!asset || asset.status !== 200 || asset.encoding !== 'br')
      throw new Error(
        `lighthouse: the shell's script ${script ?? '(none found)'} does not come as Brotli from ${host}`,
      );
  }
}

// ---- other work on the machine ----------------------------------------------------------------
// Lighthouse simulates a slow phone from what it observes on this one: CPU taken by other
// processes meanwhile shows up as blocking time. Each run says how busy the rest of the machine was.

/** Other processes' cores above which a run is marked as disturbed (as in bench/run.ts). */
const DISTURBED = 0.2;

/** Fields of /proc/<pid>/stat after the command name, or null once the process is gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time, in ms, of this process and its descendants (Chromium's included: they are children of
 * this one), each with the children it reaped (Chromium's exited renderers), but this process without
 * its own reaped children (an earlier run's Chromium). */
function ourCpuMs(): number {
  const children = new Map<number, number[]>();
  const times = new Map<number, [number, number]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    if (!fields) continue;
    const [ppid, own, reaped] = [
      Number(fields[1]),
      Number(fields[11]) + Number(fields[12]),
      Number(fields[13]) + Number(fields[14]),
    ];
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    times.set(Number(name), [own, reaped]);
  }
  let ticks = times.get(process.pid)?.[0] ?? 0;
  const queue = [...(children.get(process.pid) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    ticks += (times.get(pid)?.[0] ?? 0) + (times.get(pid)?.[1] ?? 0);
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks * 10; // clock ticks of 10 ms
}

/** CPU time the whole machine spent busy (all cores), in ms. */
function machineBusyMs(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number);
  return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!) * 10; // less idle and iowait
}

function othersMeter(): () => number {
  const start = { machine: machineBusyMs(), ours: ourCpuMs(), at: performance.now() };
  return () =>
    Math.max(0, (machineBusyMs() - start.machine - (ourCpuMs() - start.ours)) / (performance.now() - start.at));
}

// ---- runs ----------------------------------------------------------------------------------------

/** A run Lighthouse itself gave up on (NO_NAVSTART, NO_FCP…), which it says to run again. */
class RuntimeError extends Error {}
const ATTEMPTS = 3;

async function runOnce(url: string, reportFile: string): Promise<Omit<Run, 'failedAttempts'> & { setup: Setup }> {
  const started = performance.now();
  const others = othersMeter();
  // A profile of its own, deleted afterwards: the visit finds nothing cached or stored.
  const profile = mkdtempSync(join(tmpdir(), 'tessera-lighthouse-'));
  const chrome = await launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: CHROME_FLAGS,
    userDataDir: profile,
    logLevel: 'silent',
  });
  try {
    // No config: Lighthouse's defaults, which are the mobile preset with simulated throttling.
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
    if (!result) throw new Error(`lighthouse: no result for ${url}`);
    const { lhr } = result;
    writeFileSync(reportFile, typeof result.report === 'string' ? result.report : JSON.stringify(lhr));
    if (lhr.runtimeError) throw new RuntimeError(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    const score = (id: string) => {
      const value = lhr.categories[id]?.score;
      if (typeof value !== 'number') throw new Error(`lighthouse: no ${id} score for ${url}`);
      return Math.round(value * 100);
    };
    const numeric = (id: string) => {
      const value = lhr.audits[id]?.numericValue;
      if (typeof value !== 'number')
        throw new Error(
          `lighthouse: audit ${id} has no value for ${url} (${lhr.audits[id]?.errorMessage ?? 'not run'})`,
        );
      return value;
    };
    const requests = lhr.audits['network-requests']?.details;
    const failing = ['accessibility', 'best-practices', 'seo'].flatMap((id) => {
      const lost = (lhr.categories[id]?.auditRefs ?? []).filter(
        (ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1,
      );
      return lost.length > 0 ? [`${id}: ${lost.map((ref) => ref.id).join(', ')}`] : [];
    });
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      seo: score('seo'),
      fcpMs: numeric('first-contentful-paint'),
      lcpMs: numeric('largest-contentful-paint'),
      tbtMs: numeric('total-blocking-time'),
      cls: numeric('cumulative-layout-shift'),
      // Bytes as they came over the wire (compressed, headers included), every request of the visit.
      transferBytes: numeric('total-byte-weight'),
      requests: requests?.type === 'table' ? requests.items.length : 0,
      seconds: (performance.now() - started) / 1000,
      otherCores: others(),
      benchmarkIndex: lhr.environment.benchmarkIndex,
      warnings: lhr.runWarnings.map(String),
      failing,
      setup: {
        lighthouse: lhr.lighthouseVersion,
        browser: lhr.environment.hostUserAgent.match(/\w*Chrom\w*\/[\d.]+/)?.[0] ?? lhr.environment.hostUserAgent,
        formFactor: lhr.configSettings.formFactor,
        throttlingMethod: lhr.configSettings.throttlingMethod,
        throttling: lhr.configSettings.throttling,
        screen: lhr.configSettings.screenEmulation,
      },
    };
  } finally {
    chrome.kill();
    rmSync(profile, { recursive: true, force: true });
  }
}

const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const describeFigures = (f: LighthouseFigures) =>
  `performance ${f.performance}, accessibility ${f.accessibility}, best practices ${f.bestPractices}, SEO ${f.seo};` +
  ` FCP ${(f.fcpMs / 1000).toFixed(2)} s, LCP ${(f.lcpMs / 1000).toFixed(2)} s, TBT ${f.tbtMs.toFixed(0)} ms, CLS ${f.cls.toFixed(3)};` +
  ` ${(f.transferBytes / 1024).toFixed(1)} KB in ${f.requests} requests`;

/** `runs` runs of each variant against the server on `port`, the variants taking turns; each run's
 * full report goes to `reportsDir` (open one in https://googlechrome.github.io/lighthouse/viewer/). */
export async function lighthouseVariants(
  port: number,
  runs: number,
  reportsDir: string,
  step: (text: string) => void,
): Promise<{ setup: Setup; variants: LighthouseVariant[] }> {
  await checkServer(port);
  mkdirSync(reportsDir, { recursive: true });
  const variants = LIGHTHOUSE_VARIANTS.map(({ name, short, host }) => {
    if (variantOfHost(host) !== (name === 'Belgian' ? 'be' : 'lu'))
      throw new Error(`lighthouse: ${host} is not the ${name} variant`);
    return { name, short, url: `http://${host}:${port}${PATH}`, runs: [] as Run[] };
  });
  const noted = new Set<string>();
  let setup: Setup | undefined;
  for (let i = 1; i <= runs; i++) {
    for (const variant of variants) {
      // On a busy machine Lighthouse sometimes loses the trace (NO_NAVSTART) and asks to be run
      // again: a few attempts, each failure printed and kept with the run.
      const failedAttempts: string[] = [];
      let attempt: Awaited<ReturnType<typeof runOnce>> | undefined;
      while (!attempt) {
        try {
          attempt = await runOnce(variant.url, join(reportsDir, `${variant.short.toLowerCase()}-${i}.json`));
        } catch (error) {
          if (!(error instanceof RuntimeError)) throw error;
          failedAttempts.push(error.message);
          if (failedAttempts.length >= ATTEMPTS)
            throw new Error(`lighthouse: ${variant.url} failed ${ATTEMPTS} times: ${failedAttempts.join('; ')}`, {
              cause: error,
            });
          step(
            `lighthouse ${variant.name} ${i}/${runs}: Lighthouse failed (${error.message.replace(/\s+/g, ' ')}), running it again`,
          );
        }
      }
      const { setup: used, ...figures } = attempt;
      const run: Run = { ...figures, failedAttempts };
      if (!setup) {
        setup = used;
        const t = used.throttling as { rttMs: number; throughputKbps: number; cpuSlowdownMultiplier: number };
        step(
          `lighthouse ${used.lighthouse} on ${used.browser}: ${used.formFactor}, ${used.throttlingMethod}d throttling` +
            ` (RTT ${t.rttMs} ms, ${(t.throughputKbps / 1024).toFixed(1)} Mb/s, CPU ×${t.cpuSlowdownMultiplier})`,
        );
      }
      variant.runs.push(run);
      step(
        `lighthouse ${variant.name} ${i}/${runs}: ${describeFigures(run)} | ${run.seconds.toFixed(1)} s,` +
          ` benchmark index ${run.benchmarkIndex.toFixed(0)}, other processes ${run.otherCores.toFixed(1)} cores${run.otherCores > DISTURBED ? ': disturbed' : ''}`,
      );
      // Each warning, and each set of points lost outside performance, once.
      for (const note of [
        ...run.warnings.map((w) => `warning: ${w.replace(/\s+/g, ' ')}`),
        ...run.failing.map((f) => `${variant.name}, points lost in ${f}`),
      ]) {
        if (noted.has(note)) continue;
        noted.add(note);
        step(`lighthouse ${note}`);
      }
    }
  }
  return {
    setup: setup!,
    variants: variants.map(({ name, url, runs: done }) => {
      const of = (key: keyof LighthouseFigures) => median(done.map((run) => run[key]));
      return {
        variant: name,
        url,
        runs: done,
        median: {
          performance: of('performance'),
          accessibility: of('accessibility'),
          bestPractices: of('bestPractices'),
          seo: of('seo'),
          fcpMs: of('fcpMs'),
          lcpMs: of('lcpMs'),
          tbtMs: of('tbtMs'),
          cls: of('cls'),
          transferBytes: of('transferBytes'),
          requests: of('requests'),
        },
      };
    }),
  };
}

/** The bench table's rows: the medians, with the mobile targets (performance ≥ 95, accessibility 100, LCP ≤ 1.0 s). */
export function lighthouseRows(variants: LighthouseVariant[]): Row[] {
  return variants.flatMap(({ variant, runs, median: m }) => {
    const short = LIGHTHOUSE_VARIANTS.find((v) => v.name === variant)!.short;
    const disturbed = runs.filter((run) => run.otherCores > DISTURBED).length;
    const label = (what: string) =>
      `Lighthouse mobile ${short} /login/email: ${what} (median of ${runs.length}${disturbed ? `, ${disturbed} disturbed` : ''})`;
    const range = (key: keyof LighthouseFigures, scale = 1, digits = 0) => {
      const values = runs.map((run) => run[key] / scale);
      return `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    };
    return [
      {
        measurement: label(`performance, runs ${range('performance')}`),
        value: m.performance,
        baseline: null,
        unit: '',
        target: '≥ 95',
        meets: m.performance >= 95,
      },
      {
        measurement: label(`accessibility, runs ${range('accessibility')}`),
        value: m.accessibility,
        baseline: null,
        unit: '',
        target: '100',
        meets: m.accessibility === 100,
      },
      reported(label(`best practices, runs ${range('bestPractices')}`), m.bestPractices, ''),
      reported(label(`SEO, runs ${range('seo')}`), m.seo, ''),
      reported(label(`FCP, runs ${range('fcpMs', 1000, 2)} s`), m.fcpMs / 1000, ' s'),
      {
        measurement: label(`LCP, runs ${range('lcpMs', 1000, 2)} s`),
        value: m.lcpMs / 1000,
        baseline: null,
        unit: ' s',
        target: '≤ 1.0 s',
        meets: m.lcpMs <= 1000,
      },
      reported(label(`TBT, runs ${range('tbtMs')} ms`), m.tbtMs, ' ms'),
      reported(label(`CLS, runs ${range('cls', 1, 3)}`), m.cls, ''),
      reported(label(`transfer as sent, ${m.requests} requests`), m.transferBytes / 1024, ' KB'),
    ];
  });
}

// Lighthouse on the first visit of /login/email, both variants, with Lighthouse's default mobile
// preset (simulated slow 4G and a mid-range phone's CPU). The server is the real app serving the
// built dist/ with its Brotli twins (bench/server-child.ts); Chromium reaches it through the
// variants' *.localhost names, which it resolves to the loopback itself (Node does not, so the
// check below goes to 127.0.0.1 with a Host header). Each run has a fresh Chrome profile, so
// nothing is cached. Runs go one after the other, the variants taking turns, and the median of
// each figure over the runs is kept.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { variantOfHost } from '../contract/constants.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROME_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const PATH = '/login/email';

export const LIGHTHOUSE_VARIANTS = [
  { name: 'Belgian', short: 'BE', host: 'account.localhost' },
  { name: 'Luxembourg', short: 'LU', host: 'account.lu.localhost' },
] as const;

/** The figures of one run: scores 0–100, times in ms, transfer in bytes (compressed, as sent). */
export type LighthouseFigures = {
  performance: number; accessibility: number; bestPractices: number; seo: number;
  fcpMs: number; lcpMs: number; tbtMs: number; cls: number; transferBytes: number; requests: number;
};
type Run = LighthouseFigures & {
  seconds: number; benchmarkIndex: number; warnings: string[];
  /** Audits that cost points outside performance, as category: audit ids. */
  failing: string[];
};
export type LighthouseVariant = { variant: string; url: string; runs: Run[]; median: LighthouseFigures };
/** What the runs were made with, from the first report. */
type Setup = { lighthouse: string; browser: string; formFactor: string; throttlingMethod: string; throttling: object; screen: object };

/** The server's answer to a GET as Chromium would ask it, from Node: 127.0.0.1 with the variant's Host. */
function probe(port: number, host: string, path: string): Promise<{ status: number; encoding?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host: `${host}:${port}`, 'accept-encoding': 'br, gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

/** Figures measured against a server that sends the files uncompressed would not be the first visit
 * users get: make sure the shell and its first script go out as Brotli, on both hosts. */
async function checkServer(port: number): Promise<void> {
  for (const { host } of LIGHTHOUSE_VARIANTS) {
    const shell = await probe(port, host, PATH);
    if (shell.status !== 200 || shell.encoding !== 'br') throw new Error(`lighthouse: ${host}${PATH} answered ${shell.status}, encoding ${shell.encoding ?? 'none'} (a dist/ build with Brotli twins expected)`);
    const script = /<script[^>]+src="([^"]+\.js)"/.exec(brotliDecompressSync(shell.body).toString())?.[1];
    const asset = script ? await probe(port, host, script) : null;
    if (!asset || asset.status !== 200 || asset.encoding !== 'br') throw new Error(`lighthouse: the shell's script ${script ?? '(none found)'} does not come as Brotli from ${host}`);
  }
}

async function runOnce(url: string, reportFile: string): Promise<Run & { setup: Setup }> {
  const started = performance.now();
  // A profile of its own, deleted afterwards: the visit finds nothing cached or stored.
  const profile = mkdtempSync(join(tmpdir(), 'tessera-lighthouse-'));
  const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS, userDataDir: profile, logLevel: 'silent' });
  try {
    // No config: Lighthouse's defaults, which are the mobile preset with simulated throttling.
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
    if (!result) throw new Error(`lighthouse: no result for ${url}`);
    const { lhr } = result;
    writeFileSync(reportFile, typeof result.report === 'string' ? result.report : JSON.stringify(lhr));
    if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    const score = (id: string) => {
      const value = lhr.categories[id]?.score;
      if (typeof value !== 'number') throw new Error(`lighthouse: no ${id} score for ${url}`);
      return Math.round(value * 100);
    };
    const numeric = (id: string) => {
      const value = lhr.audits[id]?.numericValue;
      if (typeof value !== 'number') throw new Error(`lighthouse: audit ${id} has no value for ${url} (${lhr.audits[id]?.errorMessage ?? 'not run'})`);
      return value;
    };
    const requests = lhr.audits['network-requests']?.details;
    const failing = ['accessibility', 'best-practices', 'seo'].flatMap((id) => {
      const lost = (lhr.categories[id]?.auditRefs ?? []).filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1);
      return lost.length > 0 ? [`${id}: ${lost.map((ref) => ref.id).join(', ')}`] : [];
    });
    return {
      performance: score('performance'), accessibility: score('accessibility'), bestPractices: score('best-practices'), seo: score('seo'),
      fcpMs: numeric('first-contentful-paint'), lcpMs: numeric('largest-contentful-paint'), tbtMs: numeric('total-blocking-time'),
      cls: numeric('cumulative-layout-shift'),
      // Bytes as they came over the wire (compressed, headers included), every request of the visit.
      transferBytes: numeric('total-byte-weight'),
      requests: requests?.type === 'table' ? requests.items.length : 0,
      seconds: (performance.now() - started) / 1000,
      benchmarkIndex: lhr.environment.benchmarkIndex,
      warnings: lhr.runWarnings.map(String),
      failing,
      setup: {
        lighthouse: lhr.lighthouseVersion, browser: lhr.environment.hostUserAgent.match(/\w*Chrom\w*\/[\d.]+/)?.[0] ?? lhr.environment.hostUserAgent,
        formFactor: lhr.configSettings.formFactor, throttlingMethod: lhr.configSettings.throttlingMethod,
        throttling: lhr.configSettings.throttling, screen: lhr.configSettings.screenEmulation,
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

export const describeFigures = (f: LighthouseFigures) => `performance ${f.performance}, accessibility ${f.accessibility}, best practices ${f.bestPractices}, SEO ${f.seo};`
  + ` FCP ${(f.fcpMs / 1000).toFixed(2)} s, LCP ${(f.lcpMs / 1000).toFixed(2)} s, TBT ${f.tbtMs.toFixed(0)} ms, CLS ${f.cls.toFixed(3)};`
  + ` ${(f.transferBytes / 1024).toFixed(1)} KB in ${f.requests} requests`;

/** `runs` runs of each variant against the server on `port`, the variants taking turns; each run's
 * full report goes to `reportsDir` (open one in https://googlechrome.github.io/lighthouse/viewer/). */
export async function lighthouseVariants(port: number, runs: number, reportsDir: string, step: (text: string) => void): Promise<{ setup: Setup; variants: LighthouseVariant[] }> {
  await checkServer(port);
  mkdirSync(reportsDir, { recursive: true });
  const variants = LIGHTHOUSE_VARIANTS.map(({ name, short, host }) => {
    if (variantOfHost(host) !== (name === 'Belgian' ? 'be' : 'lu')) throw new Error(`lighthouse: ${host} is not the ${name} variant`);
    return { name, short, url: `http://${host}:${port}${PATH}`, runs: [] as Run[] };
  });
  const noted = new Set<string>();
  let setup: Setup | undefined;
  for (let i = 1; i <= runs; i++) {
    for (const variant of variants) {
      const { setup: used, ...run } = await runOnce(variant.url, join(reportsDir, `${variant.short.toLowerCase()}-${i}.json`));
      if (!setup) {
        setup = used;
        const t = used.throttling as { rttMs: number; throughputKbps: number; cpuSlowdownMultiplier: number };
        step(`lighthouse ${used.lighthouse} on ${used.browser}: ${used.formFactor}, ${used.throttlingMethod}d throttling`
          + ` (RTT ${t.rttMs} ms, ${(t.throughputKbps / 1024).toFixed(1)} Mb/s, CPU ×${t.cpuSlowdownMultiplier})`);
      }
      variant.runs.push(run);
      step(`lighthouse ${variant.name} ${i}/${runs}: ${describeFigures(run)} | ${run.seconds.toFixed(1)} s, benchmark index ${run.benchmarkIndex.toFixed(0)}`);
      // Each warning, and each set of points lost outside performance, once.
      for (const note of [...run.warnings.map((w) => `warning: ${w.replace(/\s+/g, ' ')}`), ...run.failing.map((f) => `${variant.name}, points lost in ${f}`)]) {
        if (noted.has(note)) continue;
        noted.add(note);
        step(`lighthouse ${note}`);
      }
    }
  }
  return { setup: setup!, variants: variants.map(({ name, url, runs: done }) => {
    const of = (key: keyof LighthouseFigures) => median(done.map((run) => run[key]));
    return {
      variant: name, url, runs: done,
      median: {
        performance: of('performance'), accessibility: of('accessibility'), bestPractices: of('bestPractices'), seo: of('seo'),
        fcpMs: of('fcpMs'), lcpMs: of('lcpMs'), tbtMs: of('tbtMs'), cls: of('cls'), transferBytes: of('transferBytes'), requests: of('requests'),
      },
    };
  }) };
}

type Row = { measurement: string; value: number; baseline: number | null; unit: string; target: string; meets: boolean | null };

/** The bench table's rows: the medians, with the mobile targets (performance ≥ 95, accessibility 100, LCP ≤ 1.5 s). */
export function lighthouseRows(variants: LighthouseVariant[]): Row[] {
  return variants.flatMap(({ variant, runs, median: m }) => {
    const short = LIGHTHOUSE_VARIANTS.find((v) => v.name === variant)!.short;
    const label = (what: string) => `Lighthouse mobile ${short} /login/email: ${what} (median of ${runs.length})`;
    const range = (key: keyof LighthouseFigures, scale = 1, digits = 0) => {
      const values = runs.map((run) => run[key] / scale);
      return `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    };
    return [
      { measurement: label(`performance, runs ${range('performance')}`), value: m.performance, baseline: null, unit: '', target: '≥ 95', meets: m.performance >= 95 },
      { measurement: label(`accessibility, runs ${range('accessibility')}`), value: m.accessibility, baseline: null, unit: '', target: '100', meets: m.accessibility === 100 },
      { measurement: label(`best practices, runs ${range('bestPractices')}`), value: m.bestPractices, baseline: null, unit: '', target: '—', meets: null },
      { measurement: label(`SEO, runs ${range('seo')}`), value: m.seo, baseline: null, unit: '', target: '—', meets: null },
      { measurement: label(`FCP, runs ${range('fcpMs', 1000, 2)} s`), value: m.fcpMs / 1000, baseline: null, unit: ' s', target: '—', meets: null },
      { measurement: label(`LCP, runs ${range('lcpMs', 1000, 2)} s`), value: m.lcpMs / 1000, baseline: null, unit: ' s', target: '≤ 1.5 s', meets: m.lcpMs <= 1500 },
      { measurement: label(`TBT, runs ${range('tbtMs')} ms`), value: m.tbtMs, baseline: null, unit: ' ms', target: '—', meets: null },
      { measurement: label(`CLS, runs ${range('cls', 1, 3)}`), value: m.cls, baseline: null, unit: '', target: '—', meets: null },
      { measurement: label(`transfer as sent, ${m.requests} requests`), value: m.transferBytes / 1024, baseline: null, unit: ' KB', target: '—', meets: null },
    ];
  });
}

// npm test: the type check, the linter and the formatting check, then every test the project has — unit, model-based,
// server integration on SQLite and PostgreSQL, then Playwright in Debian's Chromium against the
// real server — and one closing line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildWebApp } from './build.ts';
import { ensureChromium, ensureClusterTools, ensurePostgres } from './test-env.ts';

const root = join(import.meta.dirname, '..');
const reports = join(root, 'test-reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

function run(title: string, command: string, args: string[], env: Record<string, string> = {}): number {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

ensurePostgres();
ensureClusterTools();
const chromium = ensureChromium();

let failedSteps = 0;
failedSteps += run('Type check (tsc)', 'tsc', ['--noEmit', '-p', 'tsconfig.json']) === 0 ? 0 : 1;
failedSteps += run('Lint (ESLint)', 'eslint', ['.']) === 0 ? 0 : 1;
failedSteps += run('Formatting (Prettier)', 'prettier', ['--check', '.']) === 0 ? 0 : 1;
failedSteps +=
  run('Unit, model-based and server tests (vitest)', 'vitest', [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${join(reports, 'vitest.json')}`,
  ]) === 0
    ? 0
    : 1;

console.log('\n▶ Building the web app');
failedSteps += buildWebApp() === 0 ? 0 : 1;

if (existsSync(join(root, 'playwright.config.ts'))) {
  failedSteps +=
    run('Browser tests (Playwright, Chromium)', 'playwright', ['test'], {
      CHROMIUM_PATH: chromium,
      PLAYWRIGHT_JSON_OUTPUT_NAME: join(reports, 'playwright.json'),
    }) === 0
      ? 0
      : 1;
}

type Counts = { passed: number; failed: number; skipped: number };
function vitestCounts(): Counts {
  const file = join(reports, 'vitest.json');
  if (!existsSync(file)) return { passed: 0, failed: 1, skipped: 0 };
  const json = JSON.parse(readFileSync(file, 'utf8'));
  return {
    passed: json.numPassedTests,
    failed: json.numFailedTests,
    skipped: json.numPendingTests + json.numTodoTests,
  };
}
function playwrightCounts(): Counts {
  const file = join(reports, 'playwright.json');
  if (!existsSync(file)) return { passed: 0, failed: 0, skipped: 0 };
  const stats = JSON.parse(readFileSync(file, 'utf8')).stats ?? {};
  return {
    passed: (stats.expected ?? 0) + (stats.flaky ?? 0),
    failed: stats.unexpected ?? 0,
    skipped: stats.skipped ?? 0,
  };
}

const all = [vitestCounts(), playwrightCounts()].reduce((a, b) => ({
  passed: a.passed + b.passed,
  failed: a.failed + b.failed,
  skipped: a.skipped + b.skipped,
}));
const failed = all.failed + (failedSteps > 0 && all.failed === 0 ? failedSteps : 0);
console.log(`\ntests: ${all.passed} passed, ${failed} failed${all.skipped ? `, ${all.skipped} skipped` : ''}`);
process.exit(failed > 0 || failedSteps > 0 ? 1 : 0);

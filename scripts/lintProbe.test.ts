// The import directions of eslint.config.js, probed: in a scratch copy of the folders the config
// reads, one wrong-way import of each kind it forbids must be refused, and the matching right-way
// import accepted. The copy holds the real folder names of src/ and server/ plus a feature folder
// that the config has never seen.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const PATHS = 'import-x/no-restricted-paths';
const CYCLE = 'import-x/no-cycle';
const NEW_FEATURE = 'probeFeature';

/** An importer (its own file) and the module it imports; the imported module imports nothing. */
type Probe = { kind: string; from: string; to: string };

// Each kind: the wrong-way import, then a right-way import from the same place.
const KINDS: { kind: string; wrong: Omit<Probe, 'kind'>; right: Omit<Probe, 'kind'> }[] = [
  {
    kind: 'machines import src',
    wrong: { from: 'machines/a.ts', to: 'src/components/target.ts' },
    right: { from: 'machines/b.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'machines import server',
    wrong: { from: 'machines/c.ts', to: 'server/db/target.ts' },
    right: { from: 'machines/d.ts', to: 'machines/target.ts' },
  },
  {
    kind: 'contract imports src',
    wrong: { from: 'contract/a.ts', to: 'src/api/target.ts' },
    right: { from: 'contract/b.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'contract imports server',
    wrong: { from: 'contract/c.ts', to: 'server/config/target.ts' },
    right: { from: 'contract/d.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'contract imports machines',
    wrong: { from: 'contract/e.ts', to: 'machines/target.ts' },
    right: { from: 'contract/f.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'the API client imports machines',
    wrong: { from: 'src/api/a.ts', to: 'machines/target.ts' },
    right: { from: 'src/api/b.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'src imports server',
    wrong: { from: 'src/login/a.ts', to: 'server/login/target.ts' },
    right: { from: 'src/login/b.ts', to: 'machines/target.ts' },
  },
  {
    kind: 'server imports src',
    wrong: { from: 'server/login/a.ts', to: 'src/login/target.ts' },
    right: { from: 'server/login/b.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'server imports machines',
    wrong: { from: 'server/db/a.ts', to: 'machines/target.ts' },
    right: { from: 'server/db/b.ts', to: 'contract/target.ts' },
  },
  {
    kind: 'a src feature imports another',
    wrong: { from: 'src/login/c.ts', to: 'src/mfa/target.ts' },
    right: { from: 'src/login/d.ts', to: 'src/components/target.ts' },
  },
  {
    kind: 'a src feature missing from any list imports another',
    wrong: { from: 'src/fuzzion/a.ts', to: 'src/mfa/target.ts' },
    right: { from: 'src/fuzzion/b.ts', to: 'src/shell/target.ts' },
  },
  {
    kind: 'a src feature imports the app that wires it',
    wrong: { from: 'src/login/e.ts', to: 'src/app/target.ts' },
    right: { from: 'src/app/c.ts', to: 'src/login/target.ts' },
  },
  {
    kind: 'the shell imports the app',
    wrong: { from: 'src/shell/a.ts', to: 'src/app/target.ts' },
    right: { from: 'src/shell/b.ts', to: 'src/api/target.ts' },
  },
  {
    kind: 'a server feature imports another',
    wrong: { from: 'server/login/c.ts', to: 'server/mfa/target.ts' },
    right: { from: 'server/login/d.ts', to: 'server/sessions/target.ts' },
  },
  {
    kind: 'a src shared folder imports a feature',
    wrong: { from: 'src/components/a.ts', to: 'src/login/target.ts' },
    right: { from: 'src/components/b.ts', to: 'src/api/target.ts' },
  },
  {
    kind: 'a src shared folder imports the shell',
    wrong: { from: 'src/api/c.ts', to: 'src/app/target.ts' },
    right: { from: 'src/app/a.ts', to: 'src/api/target.ts' },
  },
  {
    kind: 'a server shared folder imports a feature',
    wrong: { from: 'server/http/a.ts', to: 'server/login/target.ts' },
    right: { from: 'server/login/e.ts', to: 'server/http/target.ts' },
  },
  {
    kind: 'a server shared folder imports a higher layer',
    wrong: { from: 'server/db/c.ts', to: 'server/sessions/target.ts' },
    right: { from: 'server/sessions/a.ts', to: 'server/db/target.ts' },
  },
  {
    kind: 'a server shared folder imports the test kits',
    wrong: { from: 'server/identity/a.ts', to: 'server/testing/target.ts' },
    right: { from: 'server/identity/b.ts', to: 'server/passwords/target.ts' },
  },
  {
    kind: 'a server feature imports the command line',
    wrong: { from: 'server/cards/a.ts', to: 'server/cli/target.ts' },
    right: { from: 'server/cli/a.ts', to: 'server/cards/target.ts' },
  },
  {
    kind: 'a server shared folder imports the demo data',
    wrong: { from: 'server/events/a.ts', to: 'server/seed/target.ts' },
    right: { from: 'server/seed/a.ts', to: 'server/events/target.ts' },
  },
  {
    kind: 'a server feature imports the app',
    wrong: { from: 'server/oidc/a.ts', to: 'server/app.ts' },
    right: { from: 'server/oidc/b.ts', to: 'server/context.ts' },
  },
  {
    kind: 'a new src feature imports another',
    wrong: { from: `src/${NEW_FEATURE}/a.ts`, to: 'src/login/target.ts' },
    right: { from: `src/${NEW_FEATURE}/b.ts`, to: 'src/components/target.ts' },
  },
  {
    kind: 'a src feature imports a new one',
    wrong: { from: 'src/profile/a.ts', to: `src/${NEW_FEATURE}/target.ts` },
    right: { from: 'src/app/b.ts', to: `src/${NEW_FEATURE}/target.ts` },
  },
  {
    kind: 'a new server feature imports another',
    wrong: { from: `server/${NEW_FEATURE}/a.ts`, to: 'server/login/target.ts' },
    right: { from: `server/${NEW_FEATURE}/b.ts`, to: 'server/identity/target.ts' },
  },
];

const CYCLE_FILES = ['src/profile/cycleA.ts', 'src/profile/cycleB.ts'];
const CHAIN_FILES = ['src/profile/chainA.ts', 'src/profile/chainB.ts'];
// Tests drive several features: only the directions between the layers hold for them.
const TEST_FILE: Probe = {
  kind: 'a test imports another feature',
  from: 'server/login/f.test.ts',
  to: 'server/mfa/target.ts',
};

const importOf = (from: string, to: string) => {
  const specifier = relative(dirname(from), to);
  return `import { value } from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';\n`;
};

let scratch: string;
let results: Map<string, ESLint.LintResult>;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'tessera-lint-'));
  for (const file of ['eslint.config.js', 'package.json', 'tsconfig.json']) {
    copyFileSync(join(root, file), join(scratch, file));
  }
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  // The config reads the folders of src/ and server/: the copy has the same ones, and a new feature.
  for (const base of ['src', 'server']) {
    for (const entry of readdirSync(join(root, base), { withFileTypes: true })) {
      if (entry.isDirectory()) mkdirSync(join(scratch, base, entry.name), { recursive: true });
    }
    mkdirSync(join(scratch, base, NEW_FEATURE));
  }
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    writeFileSync(join(scratch, file), text);
  };
  const probes = [...KINDS.flatMap(({ wrong, right }) => [wrong, right]), TEST_FILE];
  for (const { to } of probes) write(to, 'export const value = 1;\n');
  for (const { from, to } of probes) write(from, `${importOf(from, to)}export const used = value;\n`);
  write(CYCLE_FILES[0], "import { b } from './cycleB.ts';\nexport const a = () => b;\n");
  write(CYCLE_FILES[1], "import { a } from './cycleA.ts';\nexport const b = () => a;\n");
  const [c, d] = CHAIN_FILES;
  write(c, `${importOf(c, d)}export const used = value;\n`);
  write(d, 'export const value = 1;\n');

  const eslint = new ESLint({ cwd: scratch });
  const files = [...probes.map((probe) => probe.from), ...CYCLE_FILES, ...CHAIN_FILES];
  const linted = await eslint.lintFiles(files.map((file) => join(scratch, file)));
  results = new Map(linted.map((result) => [relative(scratch, result.filePath), result]));
}, 60_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const rulesOf = (file: string) => {
  const result = results.get(file);
  expect(result, `${file} was linted`).toBeDefined();
  return result!.messages.map((message) => message.ruleId ?? message.message);
};

describe('the import directions', () => {
  it.each(KINDS)('refuses: $kind', ({ wrong }) => {
    const rules = rulesOf(wrong.from);
    expect(rules.length).toBeGreaterThan(0);
    expect(new Set(rules)).toEqual(new Set([PATHS]));
  });

  it.each(KINDS)('accepts the right way: $kind', ({ right }) => {
    expect(rulesOf(right.from)).toEqual([]);
  });

  it('refuses an import cycle and accepts a one-way chain', () => {
    for (const file of CYCLE_FILES) expect(rulesOf(file)).toEqual([CYCLE]);
    for (const file of CHAIN_FILES) expect(rulesOf(file)).toEqual([]);
  });

  it(`accepts: ${TEST_FILE.kind}`, () => {
    expect(rulesOf(TEST_FILE.from)).toEqual([]);
  });
});
